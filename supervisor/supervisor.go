package supervisor

import (
	"context"
	"errors"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/ui"
)

// Supervisor is one Session's runtime: a [Server] with its one [Session],
// in the browser's first tab. Create it with [New], then
// [Supervisor.Start]; [Supervisor.Close] stops it.
type Supervisor struct {
	srv  *Server
	sess *Session

	started, closed bool
}

// New returns a Supervisor for opts; it starts nothing. A nil opts is an
// empty Options, which Start refuses (no Company).
func New(opts *Options) *Supervisor {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.ContextPerSession = false
	return &Supervisor{srv: NewServer(&o)}
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
			s.srv.log.Error("closing after a failed start", "err", cerr)
		}
	}()
	if err := s.srv.Start(ctx); err != nil {
		return err
	}
	s.sess, err = s.srv.NewSession(ctx, "")
	return err
}

// SessionCloseTimeout bounds how long [Supervisor.Close] waits for its
// Session to close (the live view's websockets and screencast).
const SessionCloseTimeout = 5 * time.Second

// Prober is the probe view of the Session's gate (see [Session.Prober]).
func (s *Supervisor) Prober() *gate.Prober { return s.sess.Prober() }

// Close stops the live view, then the browser, then the audit log, and
// returns their errors joined. It waits at most SessionCloseTimeout for
// the live view's websockets and screencast to end. Later calls return
// nil.
func (s *Supervisor) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	if s.sess != nil {
		ctx, cancel := context.WithTimeout(context.Background(), SessionCloseTimeout)
		errs = append(errs, s.sess.Close(ctx, ""))
		cancel()
	}
	errs = append(errs, s.srv.Close())
	return errors.Join(errs...)
}

// Session is the runtime's one Session.
func (s *Supervisor) Session() *Session { return s.sess }

// Finish tells the User the agent's task is over, with its last message
// (see [Session.Finish]).
func (s *Supervisor) Finish(ctx context.Context, message string) { s.sess.Finish(ctx, message) }

// Company is the Company whose Session this is.
func (s *Supervisor) Company() *session.Company { return s.srv.company }

// Page is the agent's page (the tab the join landed in).
func (s *Supervisor) Page() *browser.Page { return s.sess.Page() }

// Control says who holds the browser; its User handle is for the User's
// channels only.
func (s *Supervisor) Control() *control.Control { return s.sess.Control() }

// Audit is the audit log; observe it for the entries as they come.
func (s *Supervisor) Audit() *audit.Log { return s.srv.audit }

// Gate is the agent's one path to the page.
func (s *Supervisor) Gate() *gate.Gate { return s.sess.Gate() }

// PairingLink mints a one-time pairing link on the live view, to pair one
// of the User's devices (a passkey) with Options.Live.Passkeys. Show it only
// where the User alone sees it (their terminal).
func (s *Supervisor) PairingLink() (ui.PairLink, error) {
	if s.sess == nil {
		return ui.PairLink{}, errors.New("pairing: the runtime has not started")
	}
	return s.sess.PairingLink()
}

// LiveURL is the live view's address with its token, or "" without a live
// view. Show it only to the User.
func (s *Supervisor) LiveURL() string {
	if s.sess == nil {
		return ""
	}
	return s.sess.LiveURL()
}
