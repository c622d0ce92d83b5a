package browser

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	cdpconn "github.com/poppy-browser/poppy-browser/browser/internal/cdp"
)

// The browser's own small scripts, run in [UtilityWorld].
var (
	//go:embed js/settle.js
	settleJS string
	//go:embed js/title.js
	titleJS string
	//go:embed js/locate.js
	locateJS string
)

// NavResult is where a navigation ended.
type NavResult struct {
	URL    string
	Status int // HTTP status of the final document; 0 when unknown (about:, same-document)
	// Loaded is false when the document committed but its load event had
	// not fired within [Options.LoadTimeout] (a resource that never ends):
	// the page is there and usable, still loading.
	Loaded bool
	// Unreachable is the URL the tab could not load when it shows the
	// browser's error page instead (a TLS or connection failure after a
	// click, a redirect, a form): the navigation failed.
	Unreachable string
}

// NavError is a navigation the browser refused or could not complete: a
// DNS or connection failure, a TLS error page, a blocked scheme.
type NavError struct {
	URL  string
	Text string // the browser's net error, e.g. net::ERR_CERT_AUTHORITY_INVALID
}

func (e *NavError) Error() string { return fmt.Sprintf("navigating to %s: %s", e.URL, e.Text) }

// Navigate loads url in the top frame and waits for its load event, at most
// [Options.LoadTimeout]: a navigation that has not committed by then fails
// with [ErrLoadTimeout] (and is stopped); one that committed but is still
// loading returns with Loaded false. A dialog (beforeunload, or one the new
// page opens while loading) ends the wait with [ErrDialogOpen]. Navigating
// a crashed tab recovers it.
func (p *Page) Navigate(ctx context.Context, url string) (NavResult, error) {
	t := p.t
	bound := p.b.loadTimeout()
	nctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	t.stopScript(nctx)
	before := p.Document()
	res, err := cdp.Call(nctx, t.nav(), page.Navigate, page.NavigateParams{URL: url})
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			p.stopAfterTimeout(ctx)
			return NavResult{}, fmt.Errorf("navigating to %s: %w (no answer in %s)", url, ErrLoadTimeout, bound)
		}
		return NavResult{}, fmt.Errorf("navigating to %s: %w", url, err)
	}
	if res.ErrorText != "" {
		return NavResult{}, &NavError{URL: url, Text: res.ErrorText}
	}
	if res.LoaderID == "" && sameDocument(p.URL(), url) {
		// The reply comes before the event that moves the URL.
		return NavResult{URL: url, Loaded: true}, nil
	}
	for {
		t.mu.Lock()
		doc := cdp.LoaderID("")
		if fi := t.frames[t.mainID]; fi != nil {
			doc = fi.loader
		}
		// Any document after the one we left is where the navigation led:
		// the one the browser named, or one that replaced it before it
		// loaded (a page that moves itself on with location.replace), or,
		// when the browser answered without a loader id (a navigation not
		// started yet), the first to commit.
		committed := doc == res.LoaderID || doc != "" && string(doc) != before
		done := committed && t.loaded[doc]
		changed := t.changed // with the state: a change after this read wakes the wait
		t.mu.Unlock()
		if done {
			r := p.result(doc)
			r.Loaded = true
			return r, nil
		}
		if err := p.waitChange(nctx, changed, true); err != nil {
			if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
				if !committed {
					p.stopAfterTimeout(ctx)
					return NavResult{}, fmt.Errorf("navigating to %s: %w (the document did not commit in %s)", url, ErrLoadTimeout, bound)
				}
				return p.result(doc), nil
			}
			return NavResult{}, fmt.Errorf("navigating to %s: %w", url, err)
		}
	}
}

// stopAfterTimeout stops a navigation that ran out of time, so that it
// does not commit later under a caller who was told it failed.
func (p *Page) stopAfterTimeout(ctx context.Context) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	_ = p.StopLoading(sctx)
}

// sameDocument reports whether a navigation from cur to url stays in the
// document: url differs from it at most in its fragment, and has one.
func sameDocument(cur, url string) bool {
	base, _, hasFragment := strings.Cut(url, "#")
	curBase, _, _ := strings.Cut(cur, "#")
	return hasFragment && base == curBase
}

// waitChange waits for a change of the page's targets or state after the
// caller read it: changed is the target's changed channel, read under the
// same lock as that state (a channel read later would miss a change in
// between, and a quiet page might not change again before the bound). It
// fails when waiting is moot: a dialog opened, the tab crashed (unless the
// wait is for a navigation that recovers it) or closed, the browser went
// away, or ctx ended.
func (p *Page) waitChange(ctx context.Context, changed <-chan struct{}, recovering bool) error {
	t := p.t
	interrupt := t.interrupt() // before the state is read, so no change is missed
	if err := t.blocked(navigation); err != nil {
		return err
	}
	if p.Crashed() && !recovering {
		return ErrCrashed
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.s.Done():
		return t.goneErr()
	case <-interrupt:
	case <-changed:
	}
	return nil
}

func (p *Page) result(loader cdp.LoaderID) NavResult {
	t := p.t
	t.mu.Lock()
	defer t.mu.Unlock()
	r := NavResult{Status: int(t.docs[loader])}
	if fi := t.frames[t.mainID]; fi != nil {
		r.URL, r.Unreachable = fi.url, fi.failed
		if loader == "" {
			r.Status = int(t.docs[fi.loader])
		}
	}
	return r
}

// WaitLoaded waits until the top frame has loaded a document whose URL
// satisfies ok, and returns where it is. A dialog, a crash or the tab
// closing end the wait with the matching error.
func (p *Page) WaitLoaded(ctx context.Context, ok func(url string) bool) (NavResult, error) {
	for {
		r, changed, loadedDoc := p.state()
		if loadedDoc && ok(r.URL) {
			r.Loaded = true
			return r, nil
		}
		if err := p.waitChange(ctx, changed, false); err != nil {
			return r, fmt.Errorf("waiting for the page to load: %w", err)
		}
	}
}

// Settle waits until no navigation of the top frame is pending and its
// document has loaded: after a click on a link or a submit button, the next
// look at the page sees where it led, not the page it left. It waits at
// most [Options.LoadTimeout]: then a page whose document is in place but
// still loading counts as settled, and a navigation still pending fails
// with [ErrLoadTimeout].
func (p *Page) Settle(ctx context.Context) error {
	t := p.t
	// A click queues its navigation as a task of the page; once a task
	// queued after it has run, the page has told us of the navigation
	// (events and replies of a session keep their order). A page that is
	// already navigating away answers with an error, which is fine here.
	if err := p.MainFrame().Call(ctx, UtilityWorld, settleJS, nil); err != nil && stops(err) {
		return fmt.Errorf("waiting for the page to settle: %w", err)
	}
	sctx, cancel := context.WithTimeout(ctx, p.b.loadTimeout())
	defer cancel()
	for {
		t.mu.Lock()
		pending := t.navigating
		changed := t.changed // before the state: a change after it wakes the wait
		t.mu.Unlock()
		_, _, loaded := p.state()
		if !pending && loaded {
			return nil
		}
		if err := p.waitChange(sctx, changed, false); err != nil {
			if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
				if !pending {
					return nil
				}
				err = ErrLoadTimeout
			}
			return fmt.Errorf("waiting for the page to settle: %w", err)
		}
	}
}

// stops reports the errors after which waiting on the page is pointless.
func stops(err error) bool {
	for _, e := range []error{ErrDialogOpen, ErrCrashed, ErrPageBusy, ErrBrowserGone, ErrTabClosed} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// state reads the top frame and whether its document finished loading.
func (p *Page) state() (NavResult, <-chan struct{}, bool) {
	t := p.t
	t.mu.Lock()
	defer t.mu.Unlock()
	var r NavResult
	loaded := false
	if fi := t.frames[t.mainID]; fi != nil {
		r.URL, r.Unreachable = fi.url, fi.failed
		r.Status = int(t.docs[fi.loader])
		loaded = t.loaded[fi.loader]
	}
	return r, t.changed, loaded
}

// Title is the top document's title ("" when it cannot be read).
func (p *Page) Title(ctx context.Context) string {
	var title string
	if err := p.MainFrame().Call(ctx, UtilityWorld, titleJS, &title); err != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.title
	}
	return title
}

// Rect is a box in the top frame's viewport, CSS pixels.
type Rect struct {
	X, Y, Width, Height float64
}

// Locate finds the first element matching a CSS selector in the top frame
// and returns its box, for scripted users of the live view.
func (p *Page) Locate(ctx context.Context, selector string) (Rect, error) {
	var r *Rect
	err := p.MainFrame().Call(ctx, UtilityWorld, locateJS, &r, selector)
	if err != nil {
		return Rect{}, fmt.Errorf("locating %q: %w", selector, err)
	}
	if r == nil {
		return Rect{}, fmt.Errorf("locating %q: no such element", selector)
	}
	return *r, nil
}

// Goto starts loading url in the top frame and returns without waiting; use
// WaitLoaded to wait for where the navigation (and any that follow it) ends.
func (p *Page) Goto(ctx context.Context, url string) error {
	gctx, cancel := context.WithTimeout(ctx, p.b.loadTimeout())
	defer cancel()
	p.t.stopScript(gctx)
	res, err := cdp.Call(gctx, p.t.nav(), page.Navigate, page.NavigateParams{URL: url})
	if err != nil {
		return fmt.Errorf("navigating to %s: %w", url, err)
	}
	if res.ErrorText != "" {
		return &NavError{URL: url, Text: res.ErrorText}
	}
	return nil
}

// Status is the HTTP status of the top frame's current document; 0 when
// unknown (about:blank, a document not from the network).
func (p *Page) Status() int {
	r, _, _ := p.state()
	return r.Status
}

// StopLoading stops every navigation of the page in flight, as the
// browser's stop button does: a document that has not committed yet never
// does. The User's take of control uses it to end an agent's navigation.
func (p *Page) StopLoading(ctx context.Context) error {
	if err := p.t.call(ctx, browserSide, page.CommandStopLoading, nil, nil); err != nil {
		return fmt.Errorf("stopping the page's loading: %w", err)
	}
	return nil
}

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
