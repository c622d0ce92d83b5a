package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/poppy-browser/poppy-browser/internal/cli"
	"github.com/poppy-browser/poppy-browser/mcpserver"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/ui"
)

func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("mcp", "mcp --company DOMAIN|URL [flags]", stderr)
	var cfg config
	cfg.register(fs)
	cfg.registerCompany(fs)
	httpAddr := fs.String("http", "", "serve MCP over Streamable HTTP on this address (give a loopback one) instead of stdio; every request needs the header Authorization: Bearer TOKEN, the token printed on stderr or set in POPPY_MCP_TOKEN; each MCP session gets its own browser context, control and live view")
	tui := fs.Bool("tui", false, "show the User's terminal UI on the controlling terminal (/dev/tty), beside the MCP transport (stdio only)")
	var mo mcpserver.Options
	fs.IntVar(&mo.MaxSessions, "max-sessions", mcpserver.DefaultMaxSessions, "over --http: at most this many MCP sessions at once; a new one beyond is refused")
	fs.DurationVar(&mo.SessionIdle, "session-idle", mcpserver.DefaultSessionIdle, "over --http: end a session (and its browser context) after this long without a request")
	logFormat := fs.String("log-format", "text", "log lines on stderr (browser attached, lost, reattached) as text or json; with json every line on stderr is a JSON record and none carries a secret: the live view's address is shown without its token (the User's links go by --on-offer, the TUI or --live-url-file), and --http needs POPPY_MCP_TOKEN")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	logger, notices, err := stderrLogger(*logFormat, stderr)
	if err != nil {
		return err
	}
	if *logFormat == "json" && *httpAddr != "" && os.Getenv("POPPY_MCP_TOKEN") == "" {
		return cli.UsageErrorf("mcp: --http with --log-format json needs the token in POPPY_MCP_TOKEN: JSON logs never carry it, so a random one could not be shown")
	}
	if cfg.Company == "" {
		return cli.UsageErrorf("mcp: --company is required")
	}
	if err := cli.NeedDisplay("mcp", cfg.Headful, cfg.CDPURL); err != nil {
		return err
	}
	cfg.UserMessages = notices
	cfg.Logger = logger
	cfg.ContextPerSession = *httpAddr != ""
	opts := cfg.options()
	if err := opts.Check(); err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	// Listen before the browser starts: a busy --http address is the
	// cause to report, not the browser start it would cancel.
	httpListener, err := cli.Listen("mcp", "--http", *httpAddr)
	if err != nil {
		return err
	}
	defer cli.CloseListener(httpListener)
	rt := supervisor.NewServer(&opts)
	defer rt.Close()
	// Chromium starts beside the MCP handshake: initialize answers at once
	// and the first browser tool waits for the start.
	go func() {
		if err := rt.Start(ctx); err != nil && ctx.Err() == nil {
			fmt.Fprintf(notices, "poppy-browser: the browser did not start (a new session tries again): %v\n", err)
		}
	}()
	srv := mcpserver.NewServer(func(ctx context.Context, id string) (mcpserver.Runtime, error) {
		ss, err := rt.NewSession(ctx, id)
		if err != nil {
			return nil, err
		}
		if *tui && *httpAddr == "" {
			go ui.ShowTUI(ctx, ss.RunTUI, ss.LiveURL(), notices)
			return withTerminal{ss}, nil
		}
		return ss, nil
	}, &mo)
	if httpListener != nil {
		return serveHTTP(ctx, srv, httpListener, notices, &mcpserver.HTTPOptions{Ready: rt.Serving, Collectors: rt.Collectors()})
	}
	return srv.ServeStdio(ctx, stdin, stdout)
}

// serveHTTP serves srv over Streamable HTTP on l, with the token from
// POPPY_MCP_TOKEN (never printed) or a random one shown on stderr; o (nil
// for none) holds what /readyz and /metrics read of the runtime.
func serveHTTP(ctx context.Context, srv *mcpserver.Server, l net.Listener, stderr io.Writer, o *mcpserver.HTTPOptions) error {
	if o == nil {
		o = &mcpserver.HTTPOptions{}
	}
	o.Token, o.Messages = os.Getenv("POPPY_MCP_TOKEN"), stderr
	if o.Token != "" {
		o.TokenFromEnv = "$POPPY_MCP_TOKEN"
	}
	return srv.ServeHTTP(ctx, l, o)
}

// withTerminal is a Session whose offers also reach the User's terminal
// UI (--tui): offer.reached names "terminal".
type withTerminal struct{ *supervisor.Session }

func (w withTerminal) OfferChannels() []string {
	return append(w.Session.OfferChannels(), mcpserver.ReachedTerminal)
}
