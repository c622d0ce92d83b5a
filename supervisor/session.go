package supervisor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/injector"
	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/ui"
)

// Session is one User's agent in a [Server]: a browser context and its
// agent's page, navigator.poppy in that context, its own control state,
// join, gate, live view (with its own token) and audit lines. With
// [Options.ContextPerSession] each Session gets a new browser context;
// otherwise the one Session uses the browser's first tab and default
// context. The accessors are safe for concurrent use.
type Session struct {
	srv     *Server
	id      string
	subject string // the sub of the OAuth token that began the MCP session, "" for none (subject.go)
	log     *slog.Logger
	browser *browser.Browser // the Server's when the Session opened; it keeps it

	audit    *audit.Log // lines carry id
	bctx     *browser.Context
	page     *browser.Page
	injector *injector.Injector
	control  *control.Control
	gate     *gate.Gate   // the Control's one gate
	prober   *gate.Prober // its probe view, with Options.Probe
	live     *ui.Live
	links    offerLinks // the User's link for the open offer (onoffer.go)

	// work runs in one errgroup what works beside the Session (the
	// injector's background work, the User's navigations, notices, offer
	// lines, the audit log's health), from the end of Open until Close
	// ends it, stage by stage, and waits for it (work.go).
	work   work
	opened bool // Open was called

	closeOnce sync.Once
	closeErr  error

	mu       sync.Mutex
	finished bool   // Finish was called
	lastWord string // the agent's last message, from Finish
}

// NewSession builds the Session id (the MCP session id; "" over stdio) and
// opens it ([Session.Open]) once the Server is Ready. It is the one
// constructor of a Session's runtime: mcpserver's sessions (through the
// command's OpenFunc), run, demo and check all get theirs from it.
func (s *Server) NewSession(ctx context.Context, id string) (*Session, error) {
	return s.newSession(ctx, id, "")
}

func (s *Server) newSession(ctx context.Context, id, subject string) (*Session, error) {
	if err := s.Ready(ctx); err != nil {
		return nil, err
	}
	b, err := s.liveBrowser(ctx)
	if err != nil {
		return nil, err
	}
	ss := &Session{srv: s, id: id, subject: subject, log: s.log.With("session", id), audit: s.audit, browser: b}
	if id != "" {
		ss.audit = s.audit.ForSession(id)
	}
	if err := ss.Open(ctx); err != nil {
		return nil, err
	}
	return ss, nil
}

// Open builds and starts everything of the Session's runtime, in the
// order: browser context and page, injector and hand-over, control (and
// the work beside it), join, the Control's one gate (and its probe view
// with Options.Browser.Probe), live view. Then what works beside the
// Session (the injector's Run among it) starts in one errgroup, which runs
// until [Session.Close]; a part of it that fails ends it all, and its
// error is logged and returned by Close. On error Open closes what it
// opened and returns the error. Open may be called once.
func (ss *Session) Open(ctx context.Context) error {
	if ss.opened {
		return errors.New("opening a session: already opened")
	}
	ss.opened = true
	err := ss.open(ctx)
	// Started even when open failed: each part lets go of what it holds
	// (a subscription, a watch) when close ends it.
	ss.startWork(ctx)
	if err != nil {
		_ = ss.close(context.WithoutCancel(ctx), "")
		return err
	}
	if ss.id != "" {
		ss.record(audit.Entry{Event: audit.EventSessionStart, Subject: ss.subjectHash()})
	}
	return nil
}

// open makes the Session's page and starts the rest on it.
func (ss *Session) open(ctx context.Context) error {
	if err := ss.openPage(ctx); err != nil {
		return err
	}
	return ss.start(ctx)
}

// openPage makes the Session's browser context and page.
func (ss *Session) openPage(ctx context.Context) (err error) {
	s := ss.srv
	if s.ownContexts() {
		if ss.bctx, err = ss.browser.NewContext(ctx); err != nil {
			return err
		}
		ss.page, err = ss.bctx.NewPage(ctx)
		return err
	}
	s.mu.Lock()
	used := s.initialUsed
	s.initialUsed = true
	s.mu.Unlock()
	if used {
		return errors.New("opening a session: this runtime serves one session (set ContextPerSession for more)")
	}
	if ss.page, err = ss.browser.InitialPage(ctx); err != nil {
		return err
	}
	ss.bctx = ss.page.Context()
	return nil
}

// start installs the injector and opens control (with the Session's
// hand-over), the join, the gate and the live view.
func (ss *Session) start(ctx context.Context) (err error) {
	s := ss.srv
	// One Session alone keeps the whole browser in step (a page it opens in
	// another context included); Sessions side by side touch their own.
	var scope injector.Scope = ss.bctx
	var window windowInput = ss.bctx
	var screen deviceScreen = ss.bctx
	if !s.ownContexts() {
		scope, window, screen = ss.browser, ss.browser, ss.browser
	}
	if !s.opts.Browser.Headful && !s.opts.Browser.GuardWindow {
		window = nil // a headless window has no input of its own
	}
	h := newHandover(markGuard{ss}, window, screen, ss.audit)
	if ss.injector, err = injector.New(&injector.Options{Domain: s.company.Domain, Browser: scope, Logger: ss.log, Also: h.inFrame}); err != nil {
		return err
	}
	ss.work.parts = append(ss.work.parts, part{stage: stageInjector, name: "injector", run: ss.injector.Run})
	if err := ss.injector.Install(ctx); err != nil {
		return err
	}
	if err := h.open(ctx, ss.injector); err != nil {
		return err
	}
	ss.control = control.New(&control.Options{Handover: h, Audit: ss.audit, Logger: ss.log})
	ss.run(userNavigations(ss.control, ss.Page, ss.audit))
	if s.opts.Offers.NotifyDesktop {
		ss.run(desktopNotices(ss.control, s.opts.Offers.notify))
	}
	if !s.opts.Join.Skip {
		if err := ss.join(ctx); err != nil {
			return err
		}
	}
	gopts := &gate.Options{
		Page:        ss.Page,
		Control:     ss.control,
		Audit:       ss.audit,
		CompanyHost: s.company.IsCompanyHost,
		Logger:      ss.log,
		// A page's own on-load submission after the agent's navigation is
		// judged in the Company's documents only.
		CompanyDomain: companyDomain(s.company),
		// Off by default: a download is the User's (the live view).
		DownloadsForAgent: s.opts.Browser.DownloadsForAgent,
	}
	if s.opts.Browser.Probe {
		ss.prober = gate.NewProber(gopts)
		ss.gate = ss.prober.Gate()
	} else {
		ss.gate = gate.New(gopts)
	}
	if !s.opts.Live.Off {
		if err := ss.startLive(); err != nil {
			return err
		}
	}
	if s.opts.Offers.Command != "" && ss.live != nil {
		ss.run(ss.onOffer(s.opts.Offers.Command, s.opts.Offers.Timeout))
	}
	if s.opts.Offers.Announce && s.opts.Live.UserMessages != nil {
		ss.run(offerAnnouncements(ss.control, s.opts.Live.UserMessages, ss.LiveURL))
	}
	for _, w := range s.opts.sessionWork {
		ss.run(w(ss))
	}
	return nil
}

// companyDomain is c's organization.domain, or "" without a Company.
func companyDomain(c *session.Company) string {
	if c == nil {
		return ""
	}
	return c.Domain
}

// join joins the Company's Session in the agent's page and records it.
func (ss *Session) join(ctx context.Context) error {
	s := ss.srv
	returnTo := s.opts.Join.ReturnTo
	if returnTo == "" {
		returnTo = "https://" + s.company.Domain + "/"
	}
	j := joinAdapter{b: ss.browser, cookies: ss.bctx, p: ss.page}
	if !s.ownContexts() {
		j.cookies = ss.browser
	}
	if err := session.Join(ctx, j, s.company, s.opts.Join.Credentials, returnTo, &session.JoinOptions{Logger: ss.log}); err != nil {
		return err
	}
	ss.record(audit.Entry{Event: audit.EventJoin, URL: returnTo})
	return nil
}

func (ss *Session) startLive() (err error) {
	s := ss.srv
	addr := s.opts.Live.Addr
	if s.opts.ContextPerSession && s.opts.Live.Router == nil {
		addr = freePortOf(addr) // each Session its own live view and token
	}
	ss.live, err = ui.NewLive(&ui.LiveOptions{Addr: addr, Router: s.opts.Live.Router, Control: ss.control, Page: ss.Page, Logger: ss.log,
		Company: s.companyName(), LinkTTL: s.opts.Live.LinkTTL, Audit: ss.audit,
		TLSCert: s.opts.Live.TLSCert, TLSKey: s.opts.Live.TLSKey, PublicURL: s.opts.Live.BehindProxy,
		EmbedOrigins: s.opts.Live.EmbedOrigins, UserIdentity: s.userIdentity(ss),
		Passkeys:           ss.passkeys(),
		InsecureTakeByLink: s.opts.Live.InsecureTakeByLink, Warnings: s.opts.Live.UserMessages})
	if err != nil {
		return err
	}
	if s.opts.Live.InsecureTakeByLink {
		ss.log.Warn("live view without proof of presence (--insecure-take-by-link)")
		if s.opts.Live.UserMessages != nil {
			fmt.Fprintln(s.opts.Live.UserMessages, "poppy-browser: "+ui.InsecureWarning)
		}
	}
	if err := ss.live.Start(); err != nil {
		return err
	}
	live := ss.live
	unwatch := ss.audit.WatchHealth(func(err error) {
		if err != nil {
			live.SetAlert("The audit log cannot be written (the disk may be full): the agent's actions are stopped until it can. Your control still works.")
		} else {
			live.SetAlert("")
		}
	})
	ss.run(func(ctx context.Context) error {
		<-ctx.Done()
		unwatch()
		return nil
	})
	if s.opts.Live.URLFile != "" && !s.opts.ContextPerSession {
		if err := ss.live.WriteURLFile(s.opts.Live.URLFile); err != nil {
			return err
		}
	}
	if s.opts.Live.UserMessages != nil {
		if ss.id != "" {
			fmt.Fprintf(s.opts.Live.UserMessages, "live view for the User of MCP session %s: %s\n", ss.id, ss.live.URL())
		} else {
			fmt.Fprintf(s.opts.Live.UserMessages, "live view for the User: %s\n", ss.live.URL())
		}
	}
	return nil
}

// companyName is the Company as the User knows it: poppy.json's
// organization name, else its domain.
func (s *Server) companyName() string {
	if s.company.Name != "" {
		return s.company.Name
	}
	return s.company.Domain
}

// freePortOf is addr's host on a free port ("" is loopback).
func freePortOf(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, "0")
}

func (ss *Session) record(e audit.Entry) {
	if err := ss.audit.Record(e); err != nil {
		ss.log.Error("audit record failed", "event", e.Event, "err", err)
	}
}

// Finish tells the User's viewers that the agent's task is over, with the
// agent's last message ("" for none). Close says it too, without one.
func (ss *Session) Finish(ctx context.Context, message string) {
	ss.mu.Lock()
	if !ss.finished {
		ss.finished, ss.lastWord = true, message
	}
	ss.mu.Unlock()
	if ss.live != nil {
		ss.live.Finish(ctx, message)
	}
}

// Close ends the Session within ctx, in this order: the work beside it
// (waited for), its gate (the action in flight ends), its live view
// (waiting for its websockets and screencast), the injector's background
// work (a frame still held is released), then its browser context (tabs,
// cookies and storage; the default context's tab stays), records the end
// with reason ("idle", "closed") in the audit log, and waits for the
// Session's errgroup. Its error joins theirs, and the error of a part of
// the background work that failed. Later calls return the first call's
// error.
func (ss *Session) Close(ctx context.Context, reason string) error {
	return ss.close(ctx, reason)
}

func (ss *Session) close(ctx context.Context, reason string) error {
	ss.closeOnce.Do(func() {
		var errs []error
		errs = append(errs, ss.work.end(ctx, stageBeside))
		if ss.gate != nil {
			errs = append(errs, ss.gate.Close(ctx)) // no action runs on a closing Session
		}
		if ss.live != nil {
			ss.live.Finish(ctx, "") // the viewers see the end, not a lost connection
			errs = append(errs, ss.live.Shutdown(ctx))
		}
		errs = append(errs, ss.work.end(ctx, stageInjector))
		if ss.bctx != nil && ss.srv.ownContexts() {
			errs = append(errs, ss.bctx.Close(ctx))
		}
		if ss.id != "" && reason != "" {
			ss.record(audit.Entry{Event: audit.EventSessionEnd, Reason: reason})
		}
		errs = append(errs, ss.work.wait(ctx))
		ss.closeErr = errors.Join(errs...)
	})
	return ss.closeErr
}

// ID is the MCP session id ("" for the one session over stdio).
func (ss *Session) ID() string { return ss.id }

// Page is the Session's page: the active tab of its browser context (the
// tab the join landed in, until a popup or browser_tabs makes another one
// active). The gate acts on it and the live view shows it. When every tab
// is closed it is the first tab, closed (actions fail with tab_closed).
func (ss *Session) Page() *browser.Page {
	if ss.page == nil {
		return nil
	}
	if tabs := ss.page.Tabs(); tabs != nil {
		if p := tabs.Active(); p != nil {
			return p
		}
	}
	return ss.page
}

// Control says who holds this Session's browser; its User handle is for
// the User's channels only.
func (ss *Session) Control() *control.Control { return ss.control }

// Gate is the agent's one path to the Session's page.
func (ss *Session) Gate() *gate.Gate { return ss.gate }

// Prober is the probe view of the Session's gate, for package check; nil
// unless [Options.Probe].
func (ss *Session) Prober() *gate.Prober { return ss.prober }

// Audit is the Session's view of the audit log.
func (ss *Session) Audit() *audit.Log { return ss.audit }

// PairingLink mints a one-time pairing link on the Session's live view
// (ui.Live.MintPairing).
func (ss *Session) PairingLink() (ui.PairLink, error) {
	if ss.live == nil {
		return ui.PairLink{}, errors.New("pairing: no live view")
	}
	return ss.live.MintPairing()
}

// LiveURL is the Session's live view address with its token, or "" without
// a live view. Show it only to the User.
func (ss *Session) LiveURL() string {
	if ss.live == nil {
		return ""
	}
	return ss.live.URL()
}

// ownContexts says whether each Session gets a browser context of its own:
// with ContextPerSession, and always in a browser the runtime attached to
// (--cdp-url): a pool's browser is shared, its first tab is not ours.
func (s *Server) ownContexts() bool {
	return s.opts.ContextPerSession || s.opts.Browser.CDPURL != ""
}

// outcome is the end of the agent's task for the terminal UI: whether it
// finished and its last message.
func (ss *Session) outcome() (bool, string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.finished, ss.lastWord
}
