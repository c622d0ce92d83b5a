package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/poppy-browser/poppy-browser/agent"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/internal/cli"
	"github.com/poppy-browser/poppy-browser/mcpserver"
	"github.com/poppy-browser/poppy-browser/testsite"
	"github.com/poppy-browser/poppy-browser/ui"
)

// demoTask is what the demo asks of the agent.
const demoTask = "Check me in for booking BKG4RT9 tomorrow, aisle seat"

func runDemo(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return demoWith(ctx, args, stdin, stdout, stderr, nil)
}

// demoWith runs the demo; onSite, when set, is given the demo airline (tests
// read what it recorded).
func demoWith(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, onSite func(*testsite.Site)) error {
	fs := cli.NewFlagSet("demo", "demo [--auto-user] [--headful] [--model scripted|openai] [--http ADDR]", stderr)
	var cfg config
	cfg.register(fs)
	var mf modelFlags
	mf.register(fs)
	autoFlag := fs.Bool("auto-user", false, "play the User's part too (the default when stdin is not a terminal; --auto-user=false leaves it to you, in the live view)")
	task := fs.String("task", demoTask, "the task for the agent")
	httpAddr := fs.String("http", "", "serve the agent's MCP tools over Streamable HTTP here instead of running the built-in agent")
	tuiFlag := fs.Bool("tui", true, "when you play the User, show the terminal UI on /dev/tty; quitting it ends the demo")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	// A bad --model or a missing key fails before anything starts.
	model, err := mf.build("demo", *task, os.Getenv)
	if err != nil {
		return err
	}
	if err := needDisplay("demo", cfg.Headful, cfg.CDPURL); err != nil {
		return err
	}
	httpListener, err := listenFlag("demo", "--http", *httpAddr)
	if err != nil {
		return err
	}
	defer closeListener(httpListener)
	site, signer, err := startDemoSite()
	if err != nil {
		return err
	}
	defer site.Close()
	if onSite != nil {
		onSite(site)
	}
	cfg.Company = testsite.CompanyDomain
	cfg.Credentials = signer
	cfg.HTTPClient = site.Client()
	cfg.BrowserArgs = site.BrowserArgs()
	cfg.ReturnTo = testsite.BookingURL()
	cfg.UserMessages = stderr // the live view URL holds its token: stderr, the User's channel, never the model's
	cfg.SessionNote = "joined as a guest"
	cfg.QuitEnds = "the demo"
	sv, err := cfg.start(ctx)
	if err != nil {
		return err
	}
	defer sv.Close()
	fmt.Fprintf(stdout, "joined %s's Session as a guest, declaring browser-control v1; the browser is on %s\n", testsite.OrgName, sv.Page().URL())
	if httpListener != nil {
		srv := mcpserver.NewServer(mcpserver.Fixed(sv.Gate()), nil) // the demo's one User
		ctx, stop := startUserSide(ctx, sv, *tuiFlag, true, stderr)
		defer stop()
		return serveHTTP(ctx, srv, httpListener, stderr, nil) // the token goes where the live view's does
	}
	// Without a terminal the User's part plays itself, unless
	// --auto-user=false says the User is in the live view.
	auto := *autoFlag || !ui.IsTerminal(stdin) && !flagSet(fs, "auto-user")
	lctx, stopLoop := context.WithCancelCause(ctx)
	defer stopLoop(nil)
	storyOut := stdout
	closeTUI := func() {}
	if !auto && *tuiFlag {
		// The terminal UI shows the agent's actions itself; story lines
		// written under it would tear its screen. Quitting it ends the demo.
		tctx, stopTUI := context.WithCancel(ctx)
		tuiDone := make(chan struct{})
		closeTUI = func() { stopTUI(); <-tuiDone }
		defer closeTUI()
		storyOut = io.Discard
		go func() {
			defer close(tuiDone)
			if err := sv.RunTUI(tctx); err != nil {
				fmt.Fprintf(stderr, "no terminal UI (%v); use the live view: %s\n", err, sv.LiveURL())
				return
			}
			if tctx.Err() == nil {
				stopLoop(errors.New("the User quit the terminal UI"))
			}
		}()
	}
	st := agent.NewTranscript(storyOut)
	if !auto {
		st.Say("you are the User: when the agent offers control, open the live view above, take control, complete the step, and hand back")
	}
	loop := agent.NewLoop(&agent.LoopOptions{Gate: sv.Gate(), Model: model, MaxSteps: mf.maxSteps, Observer: st.Event, Logger: cfg.Logger})
	uctx, stopUser := context.WithCancel(ctx)
	defer stopUser()
	waitUser := func() error { return nil }
	if auto {
		u, err := testsite.DialAutoUser(ctx, sv.LiveURL(), site, st.Say)
		if err != nil {
			return err
		}
		defer u.Close()
		waitUser = u.Start(uctx, stopLoop)
	}
	report, err := loop.Run(lctx, *task)
	if err == nil {
		sv.Finish(ctx, report.Text) // the live view shows the end and the agent's words
	}
	// The terminal UI clears its screen as it closes: the outcome is
	// printed after it.
	closeTUI()
	if err == nil && storyOut == io.Discard && report.Text != "" {
		fmt.Fprintf(stdout, "the agent finished: %s\n", report.Text)
	}
	stopUser()
	uerr := waitUser()
	if err != nil {
		if cause := context.Cause(lctx); cause != nil && ctx.Err() == nil && !errors.Is(cause, context.Canceled) {
			return fmt.Errorf("demo: %w", cause)
		}
		return fmt.Errorf("demo: %w", err)
	}
	if uerr != nil && !errors.Is(uerr, context.Canceled) {
		return fmt.Errorf("demo: %w", uerr)
	}
	summary, ok := site.CheckInSummary()
	if !ok {
		return fmt.Errorf("demo: the airline recorded no check-in (the agent's task ended: %s)", report.Reason)
	}
	fmt.Fprintln(stdout, summary)
	if !report.Success {
		return fmt.Errorf("demo: the agent did not report success (%s)", report.Reason)
	}
	return nil
}

func runAgent(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("run", "run --company DOMAIN|URL --task TEXT [--model scripted|openai] [flags]", stderr)
	var cfg config
	cfg.register(fs)
	var mf modelFlags
	mf.register(fs)
	cfg.registerCompany(fs)
	startURL := fs.String("start", "", "open this URL before the task starts (default: where the join landed)")
	task := fs.String("task", "", "what the agent should do")
	verbose := fs.Bool("verbose", false, "debug logs on stderr")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if cfg.Company == "" || *task == "" {
		return cli.UsageErrorf("run: --company and --task are required")
	}
	if cfg.NoJoin && *startURL == "" {
		return cli.UsageErrorf("run: --no-join needs --start URL (without a join the browser would start on about:blank)")
	}
	model, err := mf.build("run", *task, os.Getenv)
	if err != nil {
		return err
	}
	if err := needDisplay("run", cfg.Headful, cfg.CDPURL); err != nil {
		return err
	}
	if *verbose {
		cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	cfg.UserMessages = stderr // the live view's URL, at start and with each offer: the User's, not the model's
	cfg.AnnounceOffers = true
	sv, err := cfg.start(ctx)
	if err != nil {
		return err
	}
	defer sv.Close()
	if *startURL != "" {
		if r := sv.Gate().Do(ctx, gate.Navigate{URL: *startURL}); r.Outcome != "done" {
			return fmt.Errorf("run: opening %s: %s", *startURL, r.Message)
		}
	}
	st := agent.NewTranscript(stdout)
	opts := &agent.LoopOptions{Gate: sv.Gate(), Model: model, MaxSteps: mf.maxSteps, Observer: st.Event, Logger: cfg.Logger}
	if ui.IsTerminal(stdin) {
		opts.AskUser = ui.AskOnTerminal(stdin, st.Say)
	}
	report, err := agent.NewLoop(opts).Run(ctx, *task)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	sv.Finish(ctx, report.Text)
	if !report.Success {
		return fmt.Errorf("run: the task ended without success (%s)", report.Reason)
	}
	return nil
}
