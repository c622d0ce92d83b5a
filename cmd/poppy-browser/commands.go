package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/poppy-browser/poppy-browser/internal/cli"
	"github.com/poppy-browser/poppy-browser/internal/loopback"
	"github.com/poppy-browser/poppy-browser/mcpserver"
	"github.com/poppy-browser/poppy-browser/oauth"
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
	fs.StringVar(&mo.Instance, "instance", defaultInstance(), "over --http: this runtime process's name among several behind one reverse proxy (default the host name): in the Poppy-Instance header of every response, at the start of every MCP session id (NAME.) and in every live view path (/live/NAME/...), for the proxy to route on; a request for another instance's session gets 421")
	var af oauth.Flags
	af.Register(fs)
	logFormat := fs.String("log-format", "text", "log lines on stderr (browser attached, lost, reattached) as text or json; with json every line on stderr is a JSON record and none carries a secret: the live view's address is shown without its token (the User's links go by --on-offer, the TUI or --live-url-file), and --http needs POPPY_MCP_TOKEN")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	logger, notices, err := stderrLogger(*logFormat, stderr)
	if err != nil {
		return err
	}
	rs, err := af.ResourceServer(*httpAddr)
	if err != nil {
		return err
	}
	if rs != nil && cfg.identity.Subject != "" {
		return cli.UsageErrorf("mcp: --user names one User; with --auth-issuer each session's User is the subject (sub) of the token that began it: leave --user out")
	}
	if rs != nil {
		cfg.identity.PerSession = true // each session's User is its token's subject
	}
	if *logFormat == "json" && *httpAddr != "" && rs == nil && os.Getenv("POPPY_MCP_TOKEN") == "" {
		return cli.UsageErrorf("mcp: --http with --log-format json needs the token in POPPY_MCP_TOKEN: JSON logs never carry it, so a random one could not be shown")
	}
	if cfg.Company == "" {
		return cli.UsageErrorf("mcp: --company is required")
	}
	if err := cli.NeedDisplay("mcp", cfg.Browser.Headful, cfg.Browser.CDPURL); err != nil {
		return err
	}
	cfg.Live.UserMessages = notices
	cfg.Logger = logger
	cfg.ContextPerSession = *httpAddr != ""
	// Listen before the browser starts: a busy --http address is the
	// cause to report, not the browser start it would cancel.
	httpListener, err := cli.Listen("mcp", "--http", *httpAddr)
	if err != nil {
		return err
	}
	defer cli.CloseListener(httpListener)
	var liveOnHTTP *ui.Router
	if httpListener != nil {
		router, onHTTP, err := liveRouter(fs, &cfg, mo.Instance, httpListener)
		if err != nil {
			return err
		}
		defer func() {
			// Bounded as the MCP listener's own shutdown is: a request
			// still in flight does not hold the process's exit.
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), routerShutdown)
			defer cancel()
			_ = router.Shutdown(sctx)
		}()
		cfg.Live.Router = router
		if onHTTP {
			liveOnHTTP = router
		}
	} else {
		mo.Instance = "" // names a process among several over --http only
	}
	opts, err := cfg.options()
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	if err := opts.Check(); err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	// A tool call waits for its session's browser as long as an attach
	// may wait in the pool's queue, and a little more.
	mo.StartTimeout = max(mcpserver.DefaultStartTimeout, opts.Browser.AttachTimeout+20*time.Second)
	// A Company whose site is down when the runtime starts (a laptop
	// waking, a staging server restarting) is discovered again for a
	// while; tool calls meanwhile fail with company_unreachable.
	opts.Join.RetryCompanyFor = companyRetry
	rt := supervisor.NewServer(&opts)
	defer rt.Close()
	mo.Pending = rt.CompanyPending
	// Chromium starts beside the MCP handshake: initialize answers at once
	// and the first browser tool waits for the start.
	go func() {
		err := rt.Start(ctx)
		var ue *supervisor.CompanyUnreachableError
		switch {
		case err == nil || ctx.Err() != nil:
		case errors.As(err, &ue):
			fmt.Fprintf(notices, "poppy-browser: %v\n", err)
		default:
			fmt.Fprintf(notices, "poppy-browser: the browser did not start (a new session tries again): %v\n", err)
		}
	}()
	srv := mcpserver.NewServer(func(ctx context.Context, id string) (mcpserver.Runtime, error) {
		ss, err := openFor(ctx, rt, id)
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
		ho := &mcpserver.HTTPOptions{Ready: rt.Serving, Collectors: rt.Collectors(), Auth: rs}
		if liveOnHTTP != nil {
			ho.Live = liveOnHTTP
		}
		return serveHTTP(ctx, srv, httpListener, notices, ho)
	}
	return srv.ServeStdio(ctx, stdin, stdout)
}

// routerShutdown bounds the shutdown of the live views' Router (as
// mcpserver bounds the MCP listener's).
const routerShutdown = 2 * time.Second

// companyRetry is how long `mcp` keeps discovering a Company whose site
// does not answer (supervisor.Options.RetryCompanyFor); a variable for the
// tests.
var companyRetry = 2 * time.Minute

// serveHTTP serves srv over Streamable HTTP on l, with the token from
// POPPY_MCP_TOKEN (never printed) or a random one shown on stderr; o (nil
// for none) holds what /readyz and /metrics read of the runtime.
func serveHTTP(ctx context.Context, srv *mcpserver.Server, l net.Listener, stderr io.Writer, o *mcpserver.HTTPOptions) error {
	if o == nil {
		o = &mcpserver.HTTPOptions{}
	}
	o.Messages = stderr
	if o.Auth != nil {
		return srv.ServeHTTP(ctx, l, o) // OAuth access tokens, no static one
	}
	o.Token = os.Getenv("POPPY_MCP_TOKEN")
	if o.Token != "" {
		o.TokenFromEnv = "$POPPY_MCP_TOKEN"
	}
	return srv.ServeHTTP(ctx, l, o)
}

// liveRouter is where, over --http, every session's live view is served:
// on the MCP listener l itself (onHTTP), or, when --live names an address,
// on one listener of its own there for every session.
func liveRouter(fs *flag.FlagSet, cfg *config, instance string, l net.Listener) (r *ui.Router, onHTTP bool, err error) {
	if err := ui.CheckInstance(instance); err != nil {
		return nil, false, cli.UsageErrorf("mcp: %v", err)
	}
	ownListener := false
	fs.Visit(func(f *flag.Flag) { ownListener = ownListener || f.Name == "live" })
	if !ownListener {
		if cfg.Live.TLSCert != "" {
			return nil, false, cli.UsageErrorf("mcp: --live-tls-cert over --http needs --live ADDR: the live views are on the MCP listener, which is plain HTTP (or give --live-behind-proxy)")
		}
		if cfg.Live.BehindProxy == "" && !loopback.Addr(l.Addr().String()) {
			return nil, false, cli.UsageErrorf("mcp: the live views are on the --http listener %s, which other machines reach over plain HTTP: add --live-behind-proxy https://YOUR-PUBLIC-ORIGIN (the proxy in front serves TLS), or --live 127.0.0.1:0 to keep them on a loopback listener of their own", l.Addr())
		}
		r, err := ui.NewRouter(instance, l.Addr())
		return r, true, err
	}
	if r, err = ui.NewRouter(instance, nil); err != nil {
		return nil, false, err
	}
	if err := r.Listen(cfg.Live.Addr, &ui.LiveOptions{TLSCert: cfg.Live.TLSCert, TLSKey: cfg.Live.TLSKey,
		PublicURL: cfg.Live.BehindProxy}, cfg.Logger); err != nil {
		return nil, false, fmt.Errorf("mcp: %w", err)
	}
	return r, false, nil
}

// defaultInstance is --instance's default: the host name's first label,
// as a runtime instance may be named ("poppy" when there is none).
func defaultInstance() string {
	h, _ := os.Hostname()
	h, _, _ = strings.Cut(h, ".")
	b := []byte(h)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '-'
		}
	}
	h = strings.TrimLeft(string(b), "-_")
	if len(h) > 63 {
		h = h[:63]
	}
	if ui.CheckInstance(h) != nil {
		return "poppy"
	}
	return h
}

// withTerminal is a Session whose offers also reach the User's terminal
// UI (--tui): offer.reached names "terminal".
type withTerminal struct{ *supervisor.Session }

func (w withTerminal) OfferChannels() []string {
	return append(w.Session.OfferChannels(), mcpserver.ReachedTerminal)
}
