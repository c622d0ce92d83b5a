package supervisor

import (
	"context"

	"github.com/poppy-browser/poppy-browser/browser"
)

// Browser is the browser new Sessions open on, for tests that count its
// tabs (nil while none is attached). The runtime hands it to nobody else.
func (s *Server) Browser() *browser.Browser { return s.currentBrowser() }

// Browser is the Supervisor's browser, for tests.
func (s *Supervisor) Browser() *browser.Browser { return s.srv.currentBrowser() }

// WithSessionWork adds work to run beside each Session of o, as the
// Session's own workers do: w returns the work for the Session it is
// given, which runs from the end of Open until Close ends its ctx.
func WithSessionWork(o *Options, w func(ss *Session) func(ctx context.Context) error) {
	o.sessionWork = append(o.sessionWork, func(ss *Session) worker { return w(ss) })
}
