package browser

import (
	"github.com/chromedp/cdproto/page"

	cdpconn "github.com/poppy-browser/poppy-browser/browser/internal/cdp"
)

// Navigation is a new document in a page's top frame, as
// [Page.WatchNavigations] reports it.
type Navigation struct {
	URL string // the document's URL; for a failed load, the URL that failed
	// Failed says the load failed and the browser shows its error page.
	Failed bool
}

// WatchNavigations calls fn, in order and from a goroutine of its own, with
// every document the page's top frame commits from now on, until stop is
// called; stop waits for a running fn. It reports what happened in the page
// whoever caused it (the runtime's owner decides whose turn it was).
func (p *Page) WatchNavigations(fn func(Navigation)) (stop func()) {
	events, cancel := p.t.s.Subscribe(page.FrameNavigated.Method)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for raw := range events {
			ev, ok := cdpconn.Decode[page.EventFrameNavigated](raw)
			if !ok || ev.Frame == nil || ev.Frame.ParentID != "" {
				continue
			}
			if ev.Frame.UnreachableURL != "" {
				fn(Navigation{URL: ev.Frame.UnreachableURL, Failed: true})
				continue
			}
			fn(Navigation{URL: ev.Frame.URL})
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
