package browser

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
)

// windowInput is whether input from the browser's own windows reaches pages.
type windowInput struct {
	mu        sync.Mutex // serialises changes and our own dispatches
	blocked   bool       // every page's (Browser.SetWindowInput)
	byContext map[cdp.BrowserContextID]bool
}

// blockedLocked reports whether window input to p is blocked, browser-wide
// or for its context. The caller holds mu.
func (w *windowInput) blockedLocked(p *Page) bool {
	return w.blocked || w.byContext[p.browserContext]
}

// SetWindowInput sets whether input from the browser's own windows (a
// person at a headful Chromium's keyboard and mouse) reaches the pages, in
// every open page and in pages opened later. Blocked, a page ignores all
// input except what this package dispatches (Page.Mouse, Key, Press, Click,
// InsertText), which lifts the block on its page for the length of the
// dispatch. The runtime blocks window input while the agent holds control.
//
// It uses CDP Input.setIgnoreInputEvents, which also drops input sent over
// CDP; hence the lift around our own dispatches. Two limits: input the
// person gives during one of our dispatches (milliseconds) may reach the
// page, and the browser's own interface (address bar, back button) is not
// a page and stays usable.
func (b *Browser) SetWindowInput(ctx context.Context, allowed bool) error {
	b.win.mu.Lock()
	defer b.win.mu.Unlock()
	b.win.blocked = !allowed
	var errs error
	for _, p := range b.Pages() {
		if err := p.ignoreInput(ctx, b.win.blockedLocked(p)); err != nil && !isGone(err) {
			errs = errors.Join(errs, err)
		}
	}
	return errs
}

// newPageWindowInput applies the block to a page that just attached.
func (b *Browser) newPageWindowInput(ctx context.Context, p *Page) {
	b.win.mu.Lock()
	defer b.win.mu.Unlock()
	if !b.win.blockedLocked(p) {
		return
	}
	if err := p.ignoreInput(ctx, true); err != nil && !isGone(err) {
		b.log.Warn("blocking window input on a new page", "err", err)
	}
}

func (p *Page) ignoreInput(ctx context.Context, ignore bool) error {
	return p.t.call(ctx, browserSide, input.CommandSetIgnoreInputEvents, input.SetIgnoreInputEventsParams{Ignore: ignore}, nil)
}

// dispatch runs one of our own input dispatches, lifting a window-input
// block on this page for its length.
func (p *Page) dispatch(ctx context.Context, fn func() error) error {
	b := p.b
	b.win.mu.Lock()
	defer b.win.mu.Unlock()
	if !b.win.blockedLocked(p) {
		return fn()
	}
	if err := p.ignoreInput(ctx, false); err != nil {
		return err
	}
	err := fn()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if rerr := p.ignoreInput(rctx, true); rerr != nil && !isGone(rerr) {
		err = errors.Join(err, rerr)
	}
	return err
}

// SimulateWindowClick clicks at (x, y) the way a person at the browser's
// window would: unlike [Page.Click], it does not lift a window-input block,
// so a blocked page ignores it. It exists for tests of that block.
func (p *Page) SimulateWindowClick(ctx context.Context, x, y float64) error {
	events := []any{
		input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: x, Y: y},
		input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMousePressed, X: x, Y: y, Button: input.MouseButtonLeft, ClickCount: 1},
		input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseReleased, X: x, Y: y, Button: input.MouseButtonLeft, ClickCount: 1},
	}
	return p.t.batch(ctx, mainThread, input.CommandDispatchMouseEvent, events)
}
