package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/poppy-browser/poppy-browser/agent"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/injector"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/ui"
)

// browserFlags are the flags of every browser-owning subcommand (CONTRACT.md).
type browserFlags struct {
	chromium    string
	cdpURL      string
	headful     bool
	browserArgs stringList
	auditLog    string
	live        string
	liveURLFile string
}

func (f *browserFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.chromium, "chromium", "", "Chromium binary (default: find chromium or chrome on PATH)")
	fs.StringVar(&f.cdpURL, "cdp-url", "", "attach to this browser's DevTools URL instead of launching one")
	fs.BoolVar(&f.headful, "headful", false, "show the browser window")
	fs.Var(&f.browserArgs, "browser-arg", "extra Chromium flag (repeatable), e.g. --host-resolver-rules=...")
	fs.StringVar(&f.auditLog, "audit-log", "", "append the audit log (JSONL) to this file")
	fs.StringVar(&f.live, "live", "127.0.0.1:0", "address of the User's live view")
	fs.StringVar(&f.liveURLFile, "live-url-file", "", "write the live view URL with its token to this file (mode 0600)")
}

// config is what a runtime is built from.
type config struct {
	browserFlags
	company      string // domain or URL
	noJoin       bool
	returnTo     string
	credentials  session.CredentialSource
	httpClient   *http.Client // for discovery; nil = default TLS client
	logger       *slog.Logger
	userMessages io.Writer // where the live view URL is shown to the User
	session      string    // how the Session was joined, for the User ("joined as a guest"); "" = "joined"
	// guardWindow blocks the browser window's own input while the agent
	// holds control (set by --headful; tests set it headless).
	guardWindow bool
}

// runtimeParts is one wired runtime: a Company's Session in a browser with
// marks honoured, navigator.poppy provided, the User's live view, and the
// gate with its MCP server.
type runtimeParts struct {
	company  *session.Company
	browser  *browser.Browser
	page     *browser.Page
	control  *control.Control
	injector *injector.Injector
	audit    *control.AuditLog
	gate     *agent.Gate
	live     *ui.Live
}

func startRuntime(ctx context.Context, cfg *config) (rt *runtimeParts, err error) {
	log := cfg.logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	rt = &runtimeParts{}
	defer func() {
		if err != nil {
			rt.close()
		}
	}()
	if cfg.noJoin {
		if rt.company, err = session.NoJoin(cfg.company); err != nil {
			return nil, err
		}
	} else {
		client := cfg.httpClient
		if client == nil {
			client = &http.Client{Timeout: 20 * time.Second}
		}
		if rt.company, _, err = session.Discover(ctx, client, cfg.company); err != nil {
			return nil, err
		}
		if cfg.credentials == nil {
			return nil, errors.New("joining: no credential source (use --assertion-cmd, or --no-join)")
		}
	}
	header, err := spec.FormatExtensions(rt.company.Extensions)
	if err != nil {
		return nil, err
	}
	if cfg.auditLog != "" {
		if rt.audit, err = control.OpenAuditLog(cfg.auditLog); err != nil {
			return nil, err
		}
	} else {
		rt.audit = control.NewAuditLog(io.Discard, nil)
	}
	rt.browser, err = browser.Launch(ctx, &browser.Options{
		ExecPath:       cfg.chromium,
		CDPURL:         cfg.cdpURL,
		Headful:        cfg.headful,
		Args:           cfg.browserArgs,
		CompanyHost:    rt.company.IsCompanyHost,
		CompanyHeaders: map[string]string{spec.HeaderExtensions: header},
		Logger:         log,
	})
	if err != nil {
		return nil, err
	}
	if err := rt.browser.SetScript(ctx, "marks", marks.Script()); err != nil {
		return nil, err
	}
	if rt.injector, err = injector.New(&injector.Options{Domain: rt.company.Domain, Browser: rt.browser, Logger: log}); err != nil {
		return nil, err
	}
	if err := rt.injector.Install(ctx); err != nil {
		return nil, err
	}
	if rt.page, err = rt.browser.NewPage(ctx); err != nil {
		return nil, err
	}
	apply := rt.injector.Set
	if cfg.headful || cfg.guardWindow {
		if apply, err = guardWindowInput(ctx, rt.browser, rt.injector.Set); err != nil {
			return nil, err
		}
	}
	rt.control = control.New(&control.Options{Apply: apply, Audit: rt.audit, Logger: log})
	if !cfg.noJoin {
		returnTo := cfg.returnTo
		if returnTo == "" {
			returnTo = "https://" + rt.company.Domain + "/"
		}
		if err := session.Join(ctx, joinAdapter{rt.browser, rt.page}, rt.company, cfg.credentials, returnTo, &session.JoinOptions{Logger: log}); err != nil {
			return nil, err
		}
		_ = rt.audit.Record(control.AuditEntry{Event: control.EventJoin, URL: returnTo})
	}
	rt.gate = agent.NewGate(&agent.GateOptions{
		Page:        func() *browser.Page { return rt.page },
		Control:     rt.control,
		Audit:       rt.audit,
		CompanyHost: rt.company.IsCompanyHost,
		Logger:      log,
	})
	warnIfExposed(cfg.userMessages, "--live", cfg.live)
	rt.live, err = ui.NewLive(&ui.LiveOptions{Addr: cfg.live, Control: rt.control, Page: func() *browser.Page { return rt.page }, Logger: log})
	if err != nil {
		return nil, err
	}
	if err := rt.live.Start(); err != nil {
		return nil, err
	}
	if cfg.liveURLFile != "" {
		if err := rt.live.WriteURLFile(cfg.liveURLFile); err != nil {
			return nil, err
		}
	}
	if cfg.userMessages != nil {
		fmt.Fprintf(cfg.userMessages, "live view for the User: %s\n", rt.live.URL())
	}
	return rt, nil
}

func (rt *runtimeParts) close() {
	if rt == nil {
		return
	}
	if rt.live != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = rt.live.Shutdown(ctx)
		cancel()
	}
	if rt.browser != nil {
		_ = rt.browser.Close()
	}
	if rt.audit != nil {
		_ = rt.audit.Close()
	}
}

// joinAdapter gives session.Join the browser it needs: a navigation that
// ends where the auto-submitted join form (and its 303) leads.
type joinAdapter struct {
	b *browser.Browser
	p *browser.Page
}

func (j joinAdapter) Navigate(ctx context.Context, url string) (string, int, error) {
	if err := j.p.Goto(ctx, url); err != nil {
		return "", 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := j.p.WaitLoaded(ctx, func(u string) bool { return !strings.HasPrefix(u, url) && u != "about:blank" })
	if err != nil {
		return res.URL, res.Status, err
	}
	return res.URL, res.Status, nil
}

func (j joinAdapter) ClearCookies(ctx context.Context) error { return j.b.ClearCookies(ctx) }

// guardWindowInput blocks the browser window's own input now (the agent
// holds control) and returns an Apply hook that lets it through only while
// the User holds control: allowed after every frame reads "user", blocked
// before any frame reads "agent" again.
func guardWindowInput(ctx context.Context, b *browser.Browser, set func(context.Context, spec.Controller) error) (func(context.Context, spec.Controller) error, error) {
	if err := b.SetWindowInput(ctx, false); err != nil {
		return nil, err
	}
	return func(ctx context.Context, c spec.Controller) error {
		if c == spec.ControllerUser {
			if err := set(ctx, c); err != nil {
				return err
			}
			return b.SetWindowInput(ctx, true)
		}
		err := b.SetWindowInput(ctx, false)
		return errors.Join(err, set(ctx, c))
	}, nil
}
