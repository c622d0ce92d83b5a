package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/internal/version"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/ui"
)

// Server is what the Sessions of one runtime share: the Company, the audit
// log and one Chromium with the Company's header and the marks script.
// Each User's agent works in a [Session] of it ([Server.NewSession]).
// Create it with [NewServer], start it with [Server.Start] (which may run
// in the background while [Server.Ready] waits), and stop it with
// [Server.Close]. Its methods are safe for concurrent use.
type Server struct {
	opts Options
	log  *slog.Logger

	company *session.Company
	audit   *audit.Log

	ready chan struct{} // closed when Start has ended
	// pending is why discovery is being tried again (a
	// *CompanyUnreachableError), nil otherwise; under mu.
	pending  error
	startErr error // why Start failed (not the browser); read after ready

	attachMu sync.Mutex     // one attach at a time, see liveBrowser
	keeper   sync.WaitGroup // keepAttached, from Start to Close

	mu          sync.Mutex
	started     bool
	closed      bool
	cancelStart context.CancelFunc
	initialUsed bool // the one session of a runtime without ContextPerSession is open
	browser     *browser.Browser
	attachErr   error     // why the last attach failed
	failures    int       // attaches failed in a row
	nextAttach  time.Time // no attempt before
	stats       BrowserStats
	// unanswered says the attached browser did not answer its last
	// heartbeat (keepAttached): Serving is false until it does.
	unanswered bool

	// stopKeeping ends keepAttached, cancelAttach the attach in progress
	// (liveBrowser, one at a time; nil when none is): Close calls both.
	stopKeeping  context.CancelFunc
	cancelAttach context.CancelFunc

	stopAuditWatch func() // ends the audit log's health report on stderr
}

// userIdentity is the identity a Session's live view needs, nil for none:
// the runtime's User (--user), or over --http with OAuth the subject that
// began its MCP session (subject.go).
func (s *Server) userIdentity(ss *Session) *ui.Identity {
	if s.opts.Live.Identity != nil && ss.subject != "" {
		return s.opts.Live.Identity.ForSubject(ss.subject)
	}
	return s.opts.Live.Identity
}

// NewServer returns a Server for opts; it starts nothing.
func NewServer(opts *Options) *Server {
	s := &Server{ready: make(chan struct{})}
	if opts != nil {
		s.opts = *opts
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// Start finds the Company (discovery, or Join.Skip), opens the audit log and
// launches (or attaches to) the browser with the Company's header and the
// marks script. It blocks until done; run it in a goroutine to answer
// clients meanwhile, and let them wait with [Server.Ready]. Close stops a
// start in progress. Start may be called once.
func (s *Server) Start(ctx context.Context) (err error) {
	s.mu.Lock()
	if s.started || s.closed {
		s.mu.Unlock()
		return errors.New("starting runtime: already started")
	}
	s.started = true
	// keepAttached runs until Close, whatever becomes of Start's ctx.
	keepCtx, stopKeeping := context.WithCancel(context.WithoutCancel(ctx))
	s.stopKeeping = stopKeeping
	ctx, s.cancelStart = context.WithCancel(ctx)
	s.mu.Unlock()
	defer func() {
		if s.audit == nil {
			s.startErr = err
		}
		close(s.ready)
	}()
	if s.company, err = s.findCompany(ctx); err != nil {
		return err
	}
	if s.audit, err = s.openAudit(); err != nil {
		return err
	}
	// A browser that could not be had now is tried again for the next
	// Session (liveBrowser), so the Server stays up without one; a Server
	// of many Sessions keeps one attached in the background (keepAttached).
	_, err = s.liveBrowser(ctx)
	if s.ownContexts() {
		s.keeper.Go(func() { s.keepAttached(keepCtx) })
	}
	return err
}

// Ready waits until Start has ended and returns its error, or ctx's. A
// browser that could not be attached is not Ready's error: each new
// Session tries again.
func (s *Server) Ready(ctx context.Context) error {
	select {
	case <-s.ready:
		return s.startErr
	case <-ctx.Done():
		return fmt.Errorf("waiting for the browser to start: %w", ctx.Err())
	}
}

// findCompany discovers the Company, or takes its domain as is with Join.Skip.
func (s *Server) findCompany(ctx context.Context) (*session.Company, error) {
	if s.opts.Join.Skip {
		return session.NoJoin(s.opts.Company)
	}
	client := s.opts.Join.HTTPClient
	if client == nil {
		var err error
		if client, err = s.opts.Client(); err != nil {
			return nil, err
		}
	}
	co, warnings, err := s.discover(ctx, client)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		// The Company's poppy.json is off the letter: the User (or the
		// Company's developer) should see it, not only a log.
		if s.opts.Live.UserMessages != nil {
			fmt.Fprintf(s.opts.Live.UserMessages, "poppy-browser: warning: %s\n", w.Message)
		} else {
			s.log.Warn("poppy.json", "warning", w.Message)
		}
	}
	if s.opts.Join.Credentials == nil {
		return nil, errors.New("joining: no credential source (use --assertion-cmd, or --no-join)")
	}
	return co, nil
}

// openAudit opens the audit log and writes the run's start line.
func (s *Server) openAudit() (*audit.Log, error) {
	a := audit.New(io.Discard, nil)
	if s.opts.Audit.File != "" {
		var err error
		if a, err = audit.Open(s.opts.Audit.File); err != nil {
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
	s.stopAuditWatch = a.WatchHealth(func(err error) {
		w := s.opts.Live.UserMessages
		if w == nil {
			if err != nil {
				s.log.Error("audit log unavailable", "err", err)
			}
			return
		}
		if err != nil {
			fmt.Fprintf(w, "poppy-browser: %v: agent actions are stopped until it can be written (the User's control still works)\n", err)
		} else {
			fmt.Fprintln(w, "poppy-browser: the audit log can be written again: agent actions resume")
		}
	})
	return a, nil
}

// launchBrowser launches (or attaches to) a browser with the Company's
// header and installs the marks script.
func (s *Server) launchBrowser(ctx context.Context) (*browser.Browser, error) {
	header, err := spec.FormatExtensions(s.company.Extensions)
	if err != nil {
		return nil, err
	}
	if s.opts.Browser.CDPURL != "" && (s.opts.Browser.CAFile != "" || len(s.opts.Browser.Resolve) > 0) {
		return nil, errors.New("starting runtime: --ca-file and --resolve need a browser the runtime launches, not --cdp-url")
	}
	netArgs, err := s.opts.networkArgs(ctx, s.company.Domain)
	if err != nil {
		return nil, fmt.Errorf("starting runtime: %w", err)
	}
	b, err := browser.Launch(ctx, &browser.Options{
		ExecPath:       s.opts.Browser.Chromium,
		CDPURL:         s.opts.Browser.CDPURL,
		ConnectTimeout: s.opts.Browser.AttachTimeout,
		Headful:        s.opts.Browser.Headful,
		Args:           append(slices.Clone(s.opts.Browser.Args), netArgs...),
		CompanyHost:    s.company.IsCompanyHost,
		CompanyURL:     s.company.DeclaresTo,
		CompanyHeaders: companyHeaders(s.opts.Browser.CompanyRequestHeaders, header),
		// A page in a dialog loop would hold the tab; no page writes to disk.
		DialogLimit: browser.DialogLimit{Count: 5, Window: 5 * time.Second},
		Downloads:   browser.DownloadsRefused,
		Logger:      s.log,
	})
	if err != nil {
		return nil, err
	}
	// The watch builds on the scanner, so it is set after it (a new
	// frame runs scripts in the order they were set).
	keys, scripts := []string{"marks"}, map[string]browser.Script{"marks": marks.Script()}
	if s.opts.Browser.WatchMarks {
		keys, scripts["marks-watch"] = append(keys, "marks-watch"), marks.WatchScript()
	}
	for _, key := range keys {
		if err := b.SetScript(ctx, key, scripts[key]); err != nil {
			_ = b.Close()
			return nil, fmt.Errorf("starting runtime: %w", err)
		}
	}
	return b, nil
}

// Close stops a start in progress, then closes the browser and the audit
// log, and returns their errors joined. Close the Sessions first. Later
// calls return nil.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	started := s.started
	for _, stop := range []context.CancelFunc{s.cancelStart, s.stopKeeping, s.cancelAttach} {
		if stop != nil {
			stop()
		}
	}
	s.mu.Unlock()
	if !started {
		return nil
	}
	<-s.ready
	s.keeper.Wait()   // it ends with stopKeeping
	s.attachMu.Lock() // an attach in progress ends (its ctx) before we close
	s.mu.Lock()
	b := s.browser
	s.mu.Unlock()
	s.attachMu.Unlock()
	var errs []error
	if b != nil {
		errs = append(errs, b.Close())
	}
	if s.stopAuditWatch != nil {
		s.stopAuditWatch()
	}
	if s.audit != nil {
		errs = append(errs, s.audit.Close())
	}
	return errors.Join(errs...)
}

// Company is the Company, once Ready.
func (s *Server) Company() *session.Company { return s.company }

// currentBrowser is the browser new Sessions open on, once Ready (nil
// while none is attached).
func (s *Server) currentBrowser() *browser.Browser {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.browser
}

// Audit is the audit log, once Ready; a Session's lines carry its id.
func (s *Server) Audit() *audit.Log { return s.audit }

// companyHeaders are the headers of the Company's requests: the
// extensions header, and the caller's others (a Poppy-Extensions among
// them does not replace it).
func companyHeaders(extra map[string]string, extensions string) map[string]string {
	out := map[string]string{}
	for k, v := range extra {
		if !strings.EqualFold(k, spec.HeaderExtensions) {
			out[k] = v
		}
	}
	out[spec.HeaderExtensions] = extensions
	return out
}
