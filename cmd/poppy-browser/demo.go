package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"github.com/poppy-browser/poppy-browser/agent"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/internal/cli"
	"github.com/poppy-browser/poppy-browser/mcpserver"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
	"github.com/poppy-browser/poppy-browser/testsite/demoscript"
	"github.com/poppy-browser/poppy-browser/ui"
)

func runDemo(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return demoWith(ctx, args, stdin, stdout, stderr, nil)
}

// demoWith runs the demo; onSite, when set, is given the demo airline (tests
// read what it recorded).
func demoWith(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, onSite func(*testsite.Site)) error {
	fs := cli.NewFlagSet("demo", "demo [--auto-user] [--headful] [--model scripted|openai] [--http ADDR]", stderr)
	var cfg config
	cfg.register(fs)
	var mf demoscript.ModelFlags
	mf.Register(fs)
	autoFlag := fs.Bool("auto-user", false, "play the User's part too (the default when stdin is not a terminal; --auto-user=false leaves it to you, in the live view)")
	task := fs.String("task", demoscript.Task, "the task for the agent")
	httpAddr := fs.String("http", "", "serve the agent's MCP tools over Streamable HTTP here instead of running the built-in agent")
	tuiFlag := fs.Bool("tui", true, "when you play the User, show the terminal UI on /dev/tty; quitting it ends the demo")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	// A bad --model or a missing key fails before anything starts.
	model, err := mf.Build("demo", *task, os.Getenv)
	if err != nil {
		return err
	}
	if err := cli.NeedDisplay("demo", cfg.Browser.Headful, cfg.Browser.CDPURL); err != nil {
		return err
	}
	httpListener, err := cli.Listen("demo", "--http", *httpAddr)
	if err != nil {
		return err
	}
	defer cli.CloseListener(httpListener)
	ro, err := cfg.options()
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	return demoscript.Run(ctx, &demoscript.Options{
		Runtime: ro, Model: model, MaxSteps: mf.MaxSteps(), Task: *task,
		HTTP: httpListener, Serve: func(ctx context.Context, srv *mcpserver.Server, l net.Listener) error {
			return serveHTTP(ctx, srv, l, stderr, nil)
		},
		// Without a terminal the User's part plays itself, unless
		// --auto-user=false says the User is in the live view.
		AutoUser: *autoFlag || !ui.IsTerminal(stdin) && !cli.IsSet(fs, "auto-user"),
		TUI:      *tuiFlag, Stdout: stdout, Stderr: stderr, OnSite: onSite,
	})
}

func runAgent(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("run", "run --company DOMAIN|URL --task TEXT [--model scripted|openai] [flags]", stderr)
	var cfg config
	cfg.register(fs)
	var mf demoscript.ModelFlags
	mf.Register(fs)
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
	if cfg.Join.Skip && *startURL == "" {
		return cli.UsageErrorf("run: --no-join needs --start URL (without a join the browser would start on about:blank)")
	}
	model, err := mf.Build("run", *task, os.Getenv)
	if err != nil {
		return err
	}
	if err := cli.NeedDisplay("run", cfg.Browser.Headful, cfg.Browser.CDPURL); err != nil {
		return err
	}
	if *verbose {
		cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	cfg.Live.UserMessages = stderr // the live view's URL, at start and with each offer: the User's, not the model's
	cfg.Offers.Announce = true
	ro, err := cfg.options()
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	sv := supervisor.New(&ro)
	if err := sv.Start(ctx); err != nil {
		return err
	}
	defer sv.Close()
	if *startURL != "" {
		if r := sv.Gate().Do(ctx, gate.Navigate{URL: *startURL}); r.Outcome != "done" {
			return fmt.Errorf("run: opening %s: %s", *startURL, r.Message)
		}
	}
	st := agent.NewTranscript(stdout)
	opts := &agent.LoopOptions{Gate: sv.Gate(), Model: model, MaxSteps: mf.MaxSteps(), Observer: st.Event, Logger: cfg.Logger}
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
