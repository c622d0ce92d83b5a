package supervisor

import (
	"context"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
)

// userNavigations records the User's own navigations: while the User
// holds control, every document the agent's page's top frame commits is a
// navigate line with by "user" (a failed one with its URL and reason). A
// worker of the Session's.
func userNavigations(ctl *control.Control, page func() *browser.Page, log *audit.Log) worker {
	// unwatch is the User's turn's watch of the page's navigations; only
	// the worker's goroutine touches it.
	var unwatch func()
	end := func() {
		if unwatch != nil {
			unwatch()
			unwatch = nil
		}
	}
	watch := follow(ctl, func(_ context.Context, e control.Event) {
		switch {
		case e.Kind == control.Taken && unwatch == nil:
			if p := page(); p != nil {
				unwatch = p.WatchNavigations(func(n browser.Navigation) { recordUserNavigation(log, n) })
			}
		case e.Kind == control.HandedBack || e.Kind == control.Cancelled:
			end()
		}
	})
	return func(ctx context.Context) error {
		defer end()
		return watch(ctx)
	}
}

func recordUserNavigation(log *audit.Log, n browser.Navigation) {
	e := audit.Entry{Event: audit.EventNavigate, By: audit.ByUser, URL: n.URL}
	if n.Failed {
		e.Reason = "failed to load"
	}
	_ = log.Record(e) // a failed write is the log's to report; nothing here can help
}
