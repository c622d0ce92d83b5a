package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"

	"github.com/poppy-browser/poppy-browser/agent"
	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// demoTask is what the demo asks of the agent.
const demoTask = "Check me in for booking BKG4RT9 tomorrow, aisle seat"

func runDemo(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return demoWith(ctx, args, stdin, stdout, stderr, nil)
}

// demoWith runs the demo; onSite, when set, is given the demo airline (tests
// read what it recorded).
func demoWith(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, onSite func(*testsite.Site)) error {
	fs := newFlagSet("demo", "demo [--auto-user] [--headful] [--model scripted|openai] [--http ADDR]", stderr)
	var cfg config
	cfg.register(fs)
	var mf modelFlags
	mf.register(fs)
	autoFlag := fs.Bool("auto-user", false, "play the User's part too (the default when stdin is not a terminal)")
	task := fs.String("task", demoTask, "the task for the agent")
	httpAddr := fs.String("http", "", "serve the agent's MCP tools over Streamable HTTP here instead of running the built-in agent")
	tuiFlag := fs.Bool("tui", true, "when you play the User, show the terminal UI on /dev/tty; quitting it ends the demo")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// A bad --model or a missing key fails before anything starts.
	model, err := mf.build(*task, os.Getenv)
	if err != nil {
		return err
	}
	site, signer, err := startDemoSite()
	if err != nil {
		return err
	}
	defer site.Close()
	if onSite != nil {
		onSite(site)
	}
	cfg.company = testsite.CompanyDomain
	cfg.credentials = signer
	cfg.httpClient = site.Client()
	cfg.browserArgs = append(cfg.browserArgs, site.BrowserArgs()...)
	cfg.returnTo = testsite.BookingURL()
	cfg.userMessages = stderr // the live view URL holds its token: stderr, as CONTRACT.md says
	cfg.session = "joined as a guest"
	rt, err := startRuntime(ctx, &cfg)
	if err != nil {
		return err
	}
	defer rt.close()
	fmt.Fprintf(stdout, "joined %s's Session as a guest, declaring browser-control v1; the browser is on %s\n", testsite.OrgName, rt.page.URL())
	if *httpAddr != "" {
		srv := agent.NewServer(rt.gate, nil)
		l, err := net.Listen("tcp", *httpAddr)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		ctx, stop := startUserSide(ctx, rt, srv, &cfg, *tuiFlag, true, stderr)
		defer stop()
		return serveMCPListener(ctx, srv, l, stderr) // the token goes where the live view's does
	}
	auto := *autoFlag || !isTerminal(stdin)
	storyOut := stdout
	tuiQuit := make(chan struct{}) // closed when the User quits the terminal UI
	if !auto && *tuiFlag {
		// The terminal UI shows the agent's actions itself; story lines
		// written under it would tear its screen. Quitting it ends the demo.
		tctx, stopTUI := context.WithCancel(ctx)
		defer stopTUI()
		storyOut = io.Discard
		go func() {
			if err := runTUI(tctx, rt, &cfg); err != nil {
				fmt.Fprintf(stderr, "no terminal UI (%v); use the live view: %s\n", err, rt.live.URL())
				return
			}
			close(tuiQuit)
		}()
	}
	st := newStory(storyOut)
	if !auto {
		st.say("you are the User: when the agent offers control, open the live view above, take control, complete the step, and hand back")
	}
	loop := agent.NewLoop(&agent.LoopOptions{Gate: rt.gate, Model: model, MaxSteps: mf.maxSteps, Observer: st.event, Logger: cfg.logger})

	lctx, stopLoop := context.WithCancelCause(ctx)
	defer stopLoop(nil)
	go func() {
		select {
		case <-tuiQuit:
			stopLoop(errors.New("the User quit the terminal UI"))
		case <-lctx.Done():
		}
	}()
	userDone := make(chan error, 1)
	uctx, stopUser := context.WithCancel(ctx)
	defer stopUser()
	if auto {
		conn, err := dialUser(ctx, rt.live.URL())
		if err != nil {
			return err
		}
		defer conn.Close()
		u := &autoUser{conn: conn, site: site, say: st.say}
		go func() {
			err := u.run(uctx)
			if err != nil && uctx.Err() == nil {
				stopLoop(err)
			}
			userDone <- err
		}()
	} else {
		userDone <- nil
	}
	report, err := loop.Run(lctx, *task)
	stopUser()
	uerr := <-userDone
	if err != nil {
		if cause := context.Cause(lctx); cause != nil && ctx.Err() == nil && !errors.Is(cause, context.Canceled) {
			return fmt.Errorf("demo: %w", cause)
		}
		return fmt.Errorf("demo: %w", err)
	}
	if uerr != nil && !errors.Is(uerr, context.Canceled) {
		return fmt.Errorf("demo: %w", uerr)
	}
	checkIns := site.CheckIns()
	if len(checkIns) == 0 {
		return fmt.Errorf("demo: the airline recorded no check-in (the agent's task ended: %s)", report.Reason)
	}
	c := checkIns[len(checkIns)-1]
	fmt.Fprintf(stdout, "checked in: seat %s, controller=%s (the airline recorded %d check-in%s)\n", c.Seat, c.Controller, len(checkIns), plural(len(checkIns)))
	if !report.Success {
		return fmt.Errorf("demo: the agent did not report success (%s)", report.Reason)
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// isTerminal reports whether r is a terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func runAgent(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", "run --company DOMAIN|URL --task TEXT [--model scripted|openai] [flags]", stderr)
	var cfg config
	cfg.register(fs)
	var mf modelFlags
	mf.register(fs)
	fs.StringVar(&cfg.company, "company", "", "the Company: a domain, or an https URL whose poppy.json is discovered")
	fs.BoolVar(&cfg.noJoin, "no-join", false, "treat DOMAIN and its subdomains as the Company's website without a Session; requests there still declare browser-control v1 (for Company developers; cleartext http only to localhost)")
	assertionCmd := fs.String("assertion-cmd", "", "command that prints a fresh browser credential (JWT) for the join")
	assertionTimeout := fs.Duration("assertion-timeout", session.DefaultCommandTimeout, "how long --assertion-cmd may run")
	fs.StringVar(&cfg.returnTo, "return-to", "", "where the join lands (default https://DOMAIN/)")
	startURL := fs.String("start", "", "open this URL before the task starts (default: where the join landed)")
	task := fs.String("task", "", "what the agent should do")
	verbose := fs.Bool("verbose", false, "debug logs on stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.company == "" || *task == "" {
		return errors.New("run: --company and --task are required")
	}
	model, err := mf.build(*task, os.Getenv)
	if err != nil {
		return err
	}
	if *assertionCmd != "" {
		cfg.credentials = session.CommandSource{Command: *assertionCmd, Timeout: *assertionTimeout}
	}
	if *verbose {
		cfg.logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	cfg.userMessages = stderr
	rt, err := startRuntime(ctx, &cfg)
	if err != nil {
		return err
	}
	defer rt.close()
	if *startURL != "" {
		if r := rt.gate.Do(ctx, agent.Navigate{URL: *startURL}); r.Outcome != "done" {
			return fmt.Errorf("run: opening %s: %s", *startURL, r.Message)
		}
	}
	st := newStory(stdout)
	opts := &agent.LoopOptions{Gate: rt.gate, Model: model, MaxSteps: mf.maxSteps, Observer: st.event, Logger: cfg.logger}
	if isTerminal(stdin) {
		in := bufio.NewReader(stdin)
		opts.AskUser = func(ctx context.Context, q string) (string, error) {
			st.say("agent asks: %s", q)
			line, err := in.ReadString('\n')
			if err != nil && line == "" {
				return "", err
			}
			return strings.TrimSpace(line), nil
		}
	}
	report, err := agent.NewLoop(opts).Run(ctx, *task)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if !report.Success {
		return fmt.Errorf("run: the task ended without success (%s)", report.Reason)
	}
	return nil
}
