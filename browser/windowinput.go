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
	mu        sync.Mutex // guards the fields; never held across a browser call
	blocked   bool       // every page's (Browser.SetWindowInput)
	byContext map[cdp.BrowserContextID]bool
}

// inputBlock is one page's side of the block: what the page was last told
// and our dispatches under way, which lift it. Its lock is never held
// across a browser call: one caller at a time tells the page, the others
// wait for it to finish and look again (see syncIgnore).
type inputBlock struct {
	mu       sync.Mutex
	lifts    int           // our dispatches under way on the page
	applied  bool          // the page ignores window input
	applying bool          // a caller is telling the page
	settled  chan struct{} // closed and replaced when a telling ends
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
	b.win.blocked = !allowed
	b.win.mu.Unlock()
	var errs error
	for _, p := range b.Pages() {
		if err := p.syncIgnore(ctx); err != nil && !isGone(err) {
			errs = errors.Join(errs, err)
		}
	}
	return errs
}

// newPageWindowInput applies the block to a page that just attached.
func (b *Browser) newPageWindowInput(ctx context.Context, p *Page) {
	if err := p.syncIgnore(ctx); err != nil && !isGone(err) {
		b.log.Warn("blocking window input on a new page", "err", err)
	}
}

// syncIgnore brings the page's ignoring of window input in line with the
// block and our dispatches under way, and returns once the page was told
// what holds at that moment. A caller that finds another telling the page
// waits for it and looks again, so the last change always wins.
func (p *Page) syncIgnore(ctx context.Context) error {
	for {
		p.b.win.mu.Lock()
		blocked := p.b.win.blockedLocked(p)
		p.b.win.mu.Unlock()
		p.in.mu.Lock()
		if p.in.applying {
			settled := p.in.settled
			p.in.mu.Unlock()
			select {
			case <-settled:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		want := blocked && p.in.lifts == 0
		if want == p.in.applied {
			p.in.mu.Unlock()
			return nil
		}
		p.in.applying = true
		p.in.mu.Unlock()
		err := p.t.call(ctx, browserSide, input.CommandSetIgnoreInputEvents, input.SetIgnoreInputEventsParams{Ignore: want}, nil)
		p.in.mu.Lock()
		p.in.applying = false
		if err == nil {
			p.in.applied = want
		}
		close(p.in.settled)
		p.in.settled = make(chan struct{})
		p.in.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

// dispatch runs one of our own input dispatches, lifting a window-input
// block on this page for its length (the block drops CDP input too). It
// first waits for the page's renderers to be armed (see Frame.Hold).
func (p *Page) dispatch(ctx context.Context, fn func() error) error {
	for _, t := range p.b.targetsOfPage(p) {
		t.armedForInput(ctx)
	}
	p.lift(1)
	if err := p.syncIgnore(ctx); err != nil {
		p.lift(-1) // the page was not told anything new: nothing to undo
		return err
	}
	err := fn()
	p.lift(-1)
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if rerr := p.syncIgnore(rctx); rerr != nil && !isGone(rerr) {
		err = errors.Join(err, rerr)
	}
	return err
}

func (p *Page) lift(n int) {
	p.in.mu.Lock()
	p.in.lifts += n
	p.in.mu.Unlock()
}

// windowClick clicks at (x, y) the way a person at the browser's window
// would: unlike [Page.Click], it does not lift a window-input block, so a
// blocked page ignores it. It exists for tests of that block (browsertest).
func (p *Page) windowClick(ctx context.Context, x, y float64) error {
	events := []any{
		input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: x, Y: y},
		input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMousePressed, X: x, Y: y, Button: input.MouseButtonLeft, ClickCount: 1},
		input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseReleased, X: x, Y: y, Button: input.MouseButtonLeft, ClickCount: 1},
	}
	return p.t.batch(ctx, mainThread, input.CommandDispatchMouseEvent, events)
}
