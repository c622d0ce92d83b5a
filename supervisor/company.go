package supervisor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/spec"
)

// CompanyUnreachableError is a discovery that failed because the Company's
// site did not answer (session.ErrUnreachable): while Final is false it is
// being tried again ([Server.CompanyPending]). Its text is one sentence
// naming the Company and the last error; it holds no secret.
type CompanyUnreachableError struct {
	Company string // as the User named it (--company)
	Err     error  // the last attempt's error
	// Until is when the retries end (zero when none are made); Final says
	// they have.
	Until time.Time
	Final bool
}

func (e *CompanyUnreachableError) Error() string {
	switch {
	case e.Final && !e.Until.IsZero():
		return fmt.Sprintf("the Company %s did not answer, and no longer is tried (restart poppy-browser once its site is up); last error: %v", e.Company, e.Err)
	case e.Final:
		return fmt.Sprintf("the Company %s did not answer: %v", e.Company, e.Err)
	default:
		return fmt.Sprintf("the Company %s does not answer yet; poppy-browser tries again until %s and joins once it answers; last error: %v",
			e.Company, e.Until.UTC().Format("15:04:05 UTC"), e.Err)
	}
}

func (e *CompanyUnreachableError) Unwrap() error { return e.Err }

// Reason is the failure code of the tool calls it answers
// (spec.ReasonCompanyUnreachable).
func (e *CompanyUnreachableError) Reason() spec.Reason { return spec.ReasonCompanyUnreachable }

// Backoff of the discovery retries (Options.RetryCompanyFor).
const (
	companyRetryFirst = 500 * time.Millisecond
	companyRetryMax   = 10 * time.Second
)

// discover discovers the Company, trying again while its site does not
// answer for at most Options.RetryCompanyFor.
func (s *Server) discover(ctx context.Context, client *http.Client) (*session.Company, []spec.Warning, error) {
	until := time.Now().Add(s.opts.Join.RetryCompanyFor)
	wait := companyRetryFirst
	for attempt := 0; ; attempt++ {
		co, warnings, err := session.Discover(ctx, client, s.opts.Company)
		if err == nil || !errors.Is(err, session.ErrUnreachable) || ctx.Err() != nil {
			if attempt > 0 {
				s.setPending(nil)
				if err == nil {
					s.notice("poppy-browser: the Company %s answers: joining", s.opts.Company)
				}
			}
			return co, warnings, err
		}
		ue := &CompanyUnreachableError{Company: s.opts.Company, Err: err}
		if s.opts.Join.RetryCompanyFor <= 0 {
			ue.Final = true
			return nil, nil, ue
		}
		ue.Until = until
		left := time.Until(until)
		if left <= 0 {
			ue.Final = true
			s.setPending(nil)
			return nil, nil, ue
		}
		if attempt == 0 {
			s.notice("poppy-browser: %v", ue)
		}
		s.setPending(ue)
		t := time.NewTimer(min(wait, left))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			s.setPending(nil)
			return nil, nil, fmt.Errorf("discovering %s: %w", s.opts.Company, ctx.Err())
		}
		wait = min(2*wait, companyRetryMax)
	}
}

func (s *Server) setPending(err error) {
	s.mu.Lock()
	s.pending = err
	s.mu.Unlock()
}

// notice tells the User (UserMessages, else the log) one line.
func (s *Server) notice(format string, args ...any) {
	if s.opts.Live.UserMessages != nil {
		fmt.Fprintf(s.opts.Live.UserMessages, format+"\n", args...)
		return
	}
	s.log.Info(fmt.Sprintf(format, args...))
}

// CompanyPending is why Sessions are waiting while the Company is being
// discovered again (a *CompanyUnreachableError), or nil: the Company
// answered, or its discovery is not being retried.
func (s *Server) CompanyPending() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending
}
