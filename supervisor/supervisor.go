package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/injector"
	"github.com/poppy-browser/poppy-browser/internal/version"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/ui"
)

// Supervisor is one Session's runtime. Create it with [New], then
// [Supervisor.Start]; [Supervisor.Close] stops it.
type Supervisor struct {
	opts Options
	log  *slog.Logger

	company  *session.Company
	audit    *audit.Log
	browser  *browser.Browser
	injector *injector.Injector
	page     *browser.Page
	control  *control.Control
	gate     *gate.Gate
	live     *ui.Live

	stopNotices  func() // desktop notifications, or nil
	stopAnnounce func() // offer lines on UserMessages, or nil
	stopUserNavs func() // recording the User's navigations, or nil

	started, closed bool
}

// New returns a Supervisor for opts; it starts nothing. A nil opts is an
// empty Options, which Start refuses (no Company).
func New(opts *Options) *Supervisor {
	s := &Supervisor{}
	if opts != nil {
		s.opts = *opts
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// Start starts the runtime in the order the package doc gives. On error it
// closes what it started. Start may be called once.
func (s *Supervisor) Start(ctx context.Context) (err error) {
	if s.started || s.closed {
		return errors.New("starting runtime: already started")
	}
	s.started = true
	defer func() {
		if err == nil {
			return
		}
		// The start's error is the one to report (one line); a failure to
		// clean up after it goes to the log.
		if cerr := s.Close(); cerr != nil {
			s.log.Error("closing after a failed start", "err", cerr)
		}
	}()
	if s.company, err = s.findCompany(ctx); err != nil {
		return err
	}
	if s.audit, err = s.openAudit(); err != nil {
		return err
	}
	if err := s.startBrowser(ctx); err != nil {
		return err
	}
	apply := s.injector.Set
	if s.opts.Headful || s.opts.GuardWindow {
		if apply, err = guardWindowInput(ctx, s.browser, s.injector.Set); err != nil {
			return err
		}
	}
	s.control = control.New(&control.Options{Apply: apply, Audit: s.audit, Logger: s.log})
	s.stopUserNavs = startUserNavigations(s.control, s.Page, s.audit)
	if !s.opts.NoJoin {
		if err := s.join(ctx); err != nil {
			return err
		}
	}
	s.gate = gate.New(&gate.Options{
		Page:        s.Page,
		Control:     s.control,
		Audit:       s.audit,
		CompanyHost: s.company.IsCompanyHost,
		Logger:      s.log,
	})
	if s.opts.NotifyDesktop {
		s.stopNotices = startDesktopNotices(s.control, s.opts.notify)
	}
	if !s.opts.NoLiveView {
		if err := s.startLive(); err != nil {
			return err
		}
	}
	if s.opts.AnnounceOffers && s.opts.UserMessages != nil {
		s.stopAnnounce = startOfferAnnouncements(s.control, s.opts.UserMessages, s.LiveURL)
	}
	return nil
}

// findCompany discovers the Company, or takes its domain as is with NoJoin.
func (s *Supervisor) findCompany(ctx context.Context) (*session.Company, error) {
	if s.opts.NoJoin {
		return session.NoJoin(s.opts.Company)
	}
	client := s.opts.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 20 * time.Second}
	}
	co, warnings, err := session.Discover(ctx, client, s.opts.Company)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		// The Company's poppy.json is off the letter: the User (or the
		// Company's developer) should see it, not only a log.
		if s.opts.UserMessages != nil {
			fmt.Fprintf(s.opts.UserMessages, "poppy-browser: warning: %s\n", w.Message)
		} else {
			s.log.Warn("poppy.json", "warning", w.Message)
		}
	}
	if s.opts.Credentials == nil {
		return nil, errors.New("joining: no credential source (use --assertion-cmd, or --no-join)")
	}
	return co, nil
}

// openAudit opens the audit log and writes the run's start line.
func (s *Supervisor) openAudit() (*audit.Log, error) {
	a := audit.New(io.Discard, nil)
	if s.opts.AuditLog != "" {
		var err error
		if a, err = audit.Open(s.opts.AuditLog); err != nil {
			return nil, err
		}
	}
	start := audit.Entry{Event: audit.EventStart, Message: "poppy-browser " + version.String()}
	if s.company != nil {
		start.URL = "https://" + s.company.Domain + "/"
	}
	if err := a.Record(start); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// startBrowser launches (or attaches to) the browser with the Company's
// header, installs the marks script and the injector, and opens the
// agent's page.
func (s *Supervisor) startBrowser(ctx context.Context) error {
	header, err := spec.FormatExtensions(s.company.Extensions)
	if err != nil {
		return err
	}
	s.browser, err = browser.Launch(ctx, &browser.Options{
		ExecPath:       s.opts.Chromium,
		CDPURL:         s.opts.CDPURL,
		Headful:        s.opts.Headful,
		Args:           s.opts.BrowserArgs,
		CompanyHost:    s.company.IsCompanyHost,
		CompanyURL:     s.company.DeclaresTo,
		CompanyHeaders: map[string]string{spec.HeaderExtensions: header},
		Logger:         s.log,
	})
	if err != nil {
		return err
	}
	if err := s.browser.SetScript(ctx, "marks", marks.Script()); err != nil {
		return fmt.Errorf("starting runtime: %w", err)
	}
	if s.opts.WatchMarks {
		if err := s.browser.SetScript(ctx, "marks-watch", marks.WatchScript()); err != nil {
			return fmt.Errorf("starting runtime: %w", err)
		}
	}
	if s.injector, err = injector.New(&injector.Options{Domain: s.company.Domain, Browser: s.browser, Logger: s.log}); err != nil {
		return err
	}
	if err := s.injector.Install(ctx); err != nil {
		return err
	}
	s.page, err = s.browser.NewPage(ctx)
	return err
}

// join joins the Company's Session in the agent's page and records it.
func (s *Supervisor) join(ctx context.Context) error {
	returnTo := s.opts.ReturnTo
	if returnTo == "" {
		returnTo = "https://" + s.company.Domain + "/"
	}
	if err := session.Join(ctx, joinAdapter{s.browser, s.page}, s.company, s.opts.Credentials, returnTo, &session.JoinOptions{Logger: s.log}); err != nil {
		return err
	}
	if err := s.audit.Record(audit.Entry{Event: audit.EventJoin, URL: returnTo}); err != nil {
		s.log.Error("audit record failed", "event", audit.EventJoin, "err", err)
	}
	return nil
}

func (s *Supervisor) startLive() (err error) {
	s.live, err = ui.NewLive(&ui.LiveOptions{Addr: s.opts.LiveAddr, Control: s.control, Page: s.Page, Logger: s.log})
	if err != nil {
		return err
	}
	if err := s.live.Start(); err != nil {
		return err
	}
	if s.opts.LiveURLFile != "" {
		if err := s.live.WriteURLFile(s.opts.LiveURLFile); err != nil {
			return err
		}
	}
	if s.opts.UserMessages != nil {
		fmt.Fprintf(s.opts.UserMessages, "live view for the User: %s\n", s.live.URL())
	}
	return nil
}

// Close stops the live view, then the browser, then the audit log, and
// returns their errors joined. It waits (at most a few seconds) for the
// live view's websockets and screencast to end. Later calls return nil.
func (s *Supervisor) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	for _, stop := range []func(){s.stopNotices, s.stopAnnounce, s.stopUserNavs} {
		if stop != nil {
			stop()
		}
	}
	if s.live != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		errs = append(errs, s.live.Shutdown(ctx))
		cancel()
	}
	if s.browser != nil {
		errs = append(errs, s.browser.Close())
	}
	errs = append(errs, s.audit.Close())
	return errors.Join(errs...)
}

// Company is the Company whose Session this is.
func (s *Supervisor) Company() *session.Company { return s.company }

// Browser is the browser. The agent never reaches it but through the gate.
func (s *Supervisor) Browser() *browser.Browser { return s.browser }

// Page is the agent's page (the tab the join landed in).
func (s *Supervisor) Page() *browser.Page { return s.page }

// Control says who holds the browser; its User handle is for the User's
// channels only.
func (s *Supervisor) Control() *control.Control { return s.control }

// Injector sets navigator.poppy.controller in the Company's frames.
func (s *Supervisor) Injector() *injector.Injector { return s.injector }

// Audit is the audit log; observe it for the entries as they come.
func (s *Supervisor) Audit() *audit.Log { return s.audit }

// Gate is the agent's one path to the page.
func (s *Supervisor) Gate() *gate.Gate { return s.gate }

// LiveURL is the live view's address with its token, or "" without a live
// view. Show it only to the User.
func (s *Supervisor) LiveURL() string {
	if s.live == nil {
		return ""
	}
	return s.live.URL()
}
