package supervisor

import (
	"sync"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// startUserNavigations records the User's own navigations: while the User
// holds control, every document the agent's page's top frame commits is a
// navigate line with by "user" (a failed one with its URL and reason).
// stop ends it and waits.
func startUserNavigations(ctl *control.Control, page func() *browser.Page, log *audit.Log) (stop func()) {
	events, unsubscribe := ctl.Subscribe()
	var wg sync.WaitGroup
	wg.Go(func() {
		var unwatch func()
		end := func() {
			if unwatch != nil {
				unwatch()
				unwatch = nil
			}
		}
		defer end()
		for e := range events {
			switch {
			case e.Kind != control.KindControl:
			case e.To == spec.ControllerUser && unwatch == nil:
				if p := page(); p != nil {
					unwatch = p.WatchNavigations(func(n browser.Navigation) { recordUserNavigation(log, n) })
				}
			case e.To == spec.ControllerAgent:
				end()
			}
		}
	})
	return func() {
		unsubscribe()
		wg.Wait()
	}
}

func recordUserNavigation(log *audit.Log, n browser.Navigation) {
	e := audit.Entry{Event: audit.EventNavigate, By: audit.ByUser, URL: n.URL}
	if n.Failed {
		e.Reason = "failed to load"
	}
	_ = log.Record(e) // a failed write is the log's to report; nothing here can help
}
