package gate

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
)

// This file answers honestly for what the guard could not stop: a page's
// script that reads a marked form's data (new FormData(form), which fires
// the same formdata event as form.submit()) and sends it with its own
// request. The guard stops the form's submission; no mark can stop a
// page's own requests, so the answer says what was sent.

// sentWatcher is a surface that can list what the page's own scripts
// send (see browser.Page.WatchSent).
type sentWatcher interface {
	WatchSent(ctx context.Context) (stop func() []browser.Request)
}

func (s *pageSurface) WatchSent(ctx context.Context) func() []browser.Request {
	return s.p.WatchSent(ctx)
}

// caught is the answer to an action whose script the guard of frame
// stopped at c: the refusal (caughtByGuard), unless what it caught was a
// read of a form's data and the page sent requests of its own during the
// action: then the data may have gone out, and the answer says so.
func (r *run) caught(ctx context.Context, st *step, frame Frame, c *marks.Caught) Result {
	if c.Event != "formdata" || len(st.sent) == 0 {
		return r.caughtByGuard(ctx, frame, c)
	}
	m := r.markRefs(frame, c.Marks[0])
	var to []string
	for _, q := range st.sent {
		where := q.URL
		if u, err := url.Parse(q.URL); err == nil {
			where = u.Host + u.Path
		}
		to = append(to, q.Method+" "+clipText(where, 200))
		if len(to) == 3 {
			break
		}
	}
	return st.done(ctx, fmt.Sprintf("The page's script read the data of form %s, whose submission the Company leaves to the User (%s mark on %s), and then the page sent a request of its own (%s), which may carry that data: marks cannot stop a page's own requests, so it was sent, not stopped; the form itself was not submitted. Tell the User what the page sent.",
		m.Marked, m.Kind, m.Marked, strings.Join(to, ", ")))
}
