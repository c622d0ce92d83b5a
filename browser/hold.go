package browser

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

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
// configure): Debugger.enable waits behind a busy page's tasks, and only
// Debugger.pause and Debugger.resume interrupt its script. No page can time
// or see it: a target skips every pause (Debugger.setSkipAllPauses, which a
// renderer a navigation starts keeps) unless it renders a document that a
// script's [Script].Holds names (the injector's: the Company's), and there
// its breakpoints are off (turned on then off again on each new document,
// as a new renderer turns them on), so a page's debugger statements stop
// nothing anywhere while a pause request still stops an endless script of
// the Company's. Arming is a command that runs between the renderer's
// tasks, while a pause request interrupts a running script and is dropped
// by a renderer that still skips: so input to a page waits (bounded) until
// its renderers have run the command that arms them (see Page.dispatch),
// or a click right after a navigation could start a long task that no
// Hold can stop. A target that skips pauses can be held too: the skip is
// lifted first, and the pause is asked for again once the lift has run;
// a renderer busy in one long task since before it was armed (a Company
// document's own first script) is held only once that task ends. A
// target found paused with no Hold (a pause that took effect after its
// Hold was released) is resumed at once. One gap remains: when an armed
// target navigates to another site, its new renderer starts armed, with
// breakpoints on, until the document's first context is reported and the
// skip is sent; a debugger statement in that document's first script can
// stop (and is resumed at once). The same holds for the Company's own
// new documents until their breakpoints are off again.
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
	} else if err := t.pauseLocked(ctx, h); err != nil {
		return nil, fmt.Errorf("holding the page's scripts: %w", err)
	}
	t.armed = true
	t.held = h
	return &Hold{t: t, h: h}, nil
}

// pauseLocked asks the target to pause for h; t.holdMu is held. The
// target skips every pause but a Hold's: the skip is lifted (armLocked),
// a command that runs on the renderer's main thread, then the pause is
// asked for, a command that interrupts a running script. A renderer busy
// in a long task drops that pause while the skip still stands, so once the
// lift has run, after its task, the pause is asked for again unless it
// was taken.
func (t *tgt) pauseLocked(ctx context.Context, h *targetHold) error {
	if !t.armed {
		if err := t.armLocked(ctx); err != nil {
			return err
		}
	}
	if err := t.sendAll(ctx, command{method: debugger.CommandPause}); err != nil {
		return err
	}
	if arming := t.arming; arming != nil {
		t.b.wg.Go(func() {
			select {
			case <-arming:
			case <-t.b.ctx.Done():
				return
			}
			t.holdMu.Lock()
			defer t.holdMu.Unlock()
			if t.held == h && !h.closed {
				_ = t.sendAll(t.b.ctx, command{method: debugger.CommandPause})
			}
		})
	}
	return nil
}

// armLocked lifts the target's skip of every pause; t.holdMu is held.
// t.arming stays open until the renderer has run the command (or the
// target is gone).
func (t *tgt) armLocked(ctx context.Context) error {
	lift := skipPauses(false)
	id, ch, err := t.s.Send(ctx, lift.method, lift.params)
	if err != nil {
		return gone(err)
	}
	done := make(chan struct{})
	t.armed, t.arming = true, done
	t.b.wg.Go(func() {
		_ = t.s.Wait(t.b.ctx, id, ch, lift.method, nil)
		close(done)
		t.holdMu.Lock()
		if t.arming == done {
			t.arming = nil
		}
		t.holdMu.Unlock()
	})
	return nil
}

// armedForInput waits, within armBound, until the renderer has run the
// command that arms it, when it renders a document a script's Holds names
// (arming it now if the rearm that the document's context started has not
// run yet). Input to the page waits for it: a pause request is dropped by
// a renderer that still skips, so a long task the input starts before the
// arming has run could never be held.
func (t *tgt) armedForInput(ctx context.Context) {
	t.holdMu.Lock()
	if t.held == nil && !t.armed && t.holds() {
		_ = t.rearmLocked(ctx)
	}
	arming := t.arming
	t.holdMu.Unlock()
	if arming == nil {
		return
	}
	timer := time.NewTimer(armBound)
	defer timer.Stop()
	select {
	case <-arming:
	case <-timer.C: // busy in a long task: the input would wait behind it too
	case <-ctx.Done():
	}
}

// armBound bounds how long input waits for a renderer to be armed.
const armBound = 2 * time.Second

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
		serr := t.resumeLocked(ctx)
		if serr == nil {
			serr = t.rearmLocked(ctx)
		}
		if serr != nil {
			err = fmt.Errorf("releasing the page's scripts: %w", serr)
		}
	})
	return err
}

// rearm arms the target's debugger while it renders a document that a
// script's Holds names, and has it skip every pause otherwise.
func (t *tgt) rearm() {
	t.holdMu.Lock()
	defer t.holdMu.Unlock()
	_ = t.rearmLocked(t.b.ctx)
}

// rearmLocked is rearm with t.holdMu held. A held target stays armed
// until its last Hold is released. Each time, an armed target has its
// breakpoints turned off again: a renderer that a navigation starts turns
// them on (the protocol restores a session's skip, not its breakpoints),
// and with them on, a page's debugger statement would stop.
func (t *tgt) rearmLocked(ctx context.Context) error {
	if t.held != nil {
		return nil
	}
	want := t.holds()
	switch {
	case want && !t.armed:
		if err := t.armLocked(ctx); err != nil {
			return err
		}
	case !want && t.armed:
		if err := t.sendAll(ctx, skipPauses(true)); err != nil {
			return err
		}
		t.armed, t.arming = false, nil
	}
	cmds := []command{}
	if want {
		cmds = append(cmds,
			command{debugger.CommandSetBreakpointsActive, debugger.SetBreakpointsActiveParams{Active: true}},
			command{debugger.CommandSetBreakpointsActive, debugger.SetBreakpointsActiveParams{Active: false}})
	}
	return t.sendAll(ctx, cmds...)
}

// holds reports whether a document the target renders is one a script's
// Holds names.
func (t *tgt) holds() bool {
	t.b.mu.Lock()
	var fns []func(string) bool
	for _, sc := range t.b.scriptsForLocked(t) {
		if sc.Holds != nil {
			fns = append(fns, sc.Holds)
		}
	}
	t.b.mu.Unlock()
	if len(fns) == 0 {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, worlds := range t.contexts {
		c, ok := worlds[""]
		if !ok {
			continue
		}
		for _, fn := range fns {
			if fn(c.origin) {
				return true
			}
		}
	}
	return false
}

// resumeLocked resumes a paused target; t.holdMu is held. It counts the
// target as running from the moment the command is sent, so a Hold taken
// next sends its own pause, which the session runs after the resume.
func (t *tgt) resumeLocked(ctx context.Context) error {
	if !t.paused {
		return nil
	}
	t.paused = false
	return t.sendAll(ctx, command{method: debugger.CommandResume})
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

// command is one command for sendAll.
type command struct {
	method string
	params any
}

// skipPauses is the command that makes the target skip every pause (a
// debugger statement, a pause request) or take them again.
func skipPauses(skip bool) command {
	return command{debugger.CommandSetSkipAllPauses, debugger.SetSkipAllPausesParams{Skip: skip}}
}

// sendAll sends commands back to back (a session runs them in that order)
// and leaves their replies to an owned goroutine.
func (t *tgt) sendAll(ctx context.Context, cmds ...command) error {
	for _, c := range cmds {
		id, ch, err := t.s.Send(ctx, c.method, c.params)
		if err != nil {
			return gone(err)
		}
		t.b.wg.Go(func() { _ = t.s.Wait(t.b.ctx, id, ch, c.method, nil) })
	}
	return nil
}
