package browser

import (
	"context"
	"errors"
	"fmt"
	"sync"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/debugger"
)

// A Hold keeps every script of one renderer target from running: the
// frame's document and every frame that shares its target (its same-site
// and data: children, its same-process ancestors). It is the debugger's
// pause: the page's script stops at its next statement, even inside an
// endless loop, and nothing of the page runs until the hold is released,
// while commands of the DevTools protocol still run. So a value can be set
// while no script of the page can read the old one. Holds of one target
// are counted: the last release resumes it.
//
// The debugger is on in every page and frame target from its start (see
// configure), with breakpoints off, so a page's debugger statements stop
// nothing: Debugger.enable waits behind a busy page's tasks, and only
// Debugger.pause and Debugger.resume interrupt its script. A target found
// paused with no Hold (a pause that took effect after its Hold was
// released) is resumed at once.
type Hold struct {
	t    *tgt
	h    *targetHold
	once sync.Once
}

// targetHold is the one pause of a target that its Holds share.
type targetHold struct {
	n      int           // Holds not yet released; guarded by tgt.holdMu
	paused chan struct{} // closed when the target has paused
	closed bool          // paused is closed; guarded by tgt.holdMu
}

// Hold asks the frame's renderer to stop running script and returns at
// once: [Hold.Paused] is closed once it has. Until then the request stands:
// a renderer busy outside script (or idle) stops before its next statement
// runs. Release the Hold when done, whether or not it paused.
func (f Frame) Hold(ctx context.Context) (*Hold, error) {
	if f.t == nil {
		return nil, fmt.Errorf("%w: no frame", ErrFrameGone)
	}
	t := f.t
	t.holdMu.Lock()
	defer t.holdMu.Unlock()
	if h := t.held; h != nil {
		h.n++
		return &Hold{t: t, h: h}, nil
	}
	h := &targetHold{n: 1, paused: make(chan struct{})}
	if t.paused {
		h.closed = true
		close(h.paused)
	} else if err := t.sendAll(ctx, debugger.CommandPause); err != nil {
		return nil, fmt.Errorf("holding the page's scripts: %w", err)
	}
	t.held = h
	return &Hold{t: t, h: h}, nil
}

// Paused is closed once no script of the target runs.
func (h *Hold) Paused() <-chan struct{} { return h.h.paused }

// Release gives up the Hold; the last one of its target resumes the
// target's scripts (a pause that takes effect later is resumed when it
// does). It does not wait for the renderer.
func (h *Hold) Release(ctx context.Context) error {
	err := errors.New("hold already released")
	h.once.Do(func() {
		t := h.t
		t.holdMu.Lock()
		defer t.holdMu.Unlock()
		err = nil
		if h.h.n--; h.h.n > 0 {
			return
		}
		t.held = nil
		if serr := t.resumeLocked(ctx); serr != nil {
			err = fmt.Errorf("releasing the page's scripts: %w", serr)
		}
	})
	return err
}

// resumeLocked resumes a paused target; t.holdMu is held. It counts the
// target as running from the moment the command is sent, so a Hold taken
// next sends its own pause, which the session runs after the resume.
func (t *tgt) resumeLocked(ctx context.Context) error {
	if !t.paused {
		return nil
	}
	t.paused = false
	return t.sendAll(ctx, debugger.CommandResume)
}

// watchPauses keeps t.paused in step with the debugger and resumes a
// pause that no Hold wants. Its handlers run on the read loop.
func (t *tgt) watchPauses() {
	t.s.On(debugger.Paused.Method, func(jsonv2.Value) {
		t.b.pauses.Add(1)
		t.holdMu.Lock()
		defer t.holdMu.Unlock()
		t.paused = true
		switch h := t.held; {
		case h == nil:
			// Not on the read loop: a send may wait for the pipe.
			t.b.wg.Go(func() {
				t.holdMu.Lock()
				defer t.holdMu.Unlock()
				if t.held == nil {
					_ = t.resumeLocked(t.b.ctx)
				}
			})
		case !h.closed:
			h.closed = true
			close(h.paused)
		}
	})
	t.s.On(debugger.Resumed.Method, func(jsonv2.Value) {
		t.holdMu.Lock()
		t.paused = false
		t.holdMu.Unlock()
	})
}

// sendAll sends commands without parameters back to back (a session runs
// them in that order) and leaves their replies to an owned goroutine.
func (t *tgt) sendAll(ctx context.Context, methods ...string) error {
	for _, method := range methods {
		id, ch, err := t.s.Send(ctx, method, nil)
		if err != nil {
			return gone(err)
		}
		t.b.wg.Go(func() { _ = t.s.Wait(t.b.ctx, id, ch, method, nil) })
	}
	return nil
}
