package browser

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// callMode says what a command in a target needs, and so what may refuse
// or end it before its reply.
type callMode int

const (
	// mainThread commands run on the renderer's main thread (scripts, input,
	// DOM): refused while a dialog holds the tab or the tab crashed, and
	// ended with ErrPageBusy after Options.BusyTimeout.
	mainThread callMode = iota
	// navigation commands are refused while a dialog is open, allowed on a
	// crashed tab (a navigation recovers it); the caller bounds them.
	navigation
	// browserSide commands are answered by the browser process: they fail
	// only when the target or the browser is gone.
	browserSide
)

// guarded is a target's session as cdp.Call sees it, with every command
// run under one callMode.
type guarded struct {
	t    *tgt
	mode callMode
}

func (g guarded) Call(ctx context.Context, method string, params, res any) error {
	return g.t.call(ctx, g.mode, method, params, res)
}

func (g guarded) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	return g.t.s.Subscribe(method)
}

func (t *tgt) main() guarded { return guarded{t, mainThread} }
func (t *tgt) nav() guarded  { return guarded{t, navigation} }

// call runs one command in the target and waits for its reply, or for what
// makes the reply moot: the browser or the target going away, a dialog
// opening or the renderer crashing (they stop the main thread), the busy
// bound, or ctx.
func (t *tgt) call(ctx context.Context, mode callMode, method string, params, res any) error {
	if err := t.blocked(mode); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	id, ch, err := t.s.Send(ctx, method, params)
	if err != nil {
		return gone(err)
	}
	return t.await(ctx, mode, method, id, ch, res)
}

func (t *tgt) await(ctx context.Context, mode callMode, method string, id int64, ch chan *cdproto.Message, res any) error {
	var busy, held <-chan time.Time
	if mode == mainThread {
		timer := time.NewTimer(t.b.busyTimeout())
		defer timer.Stop()
		busy = timer.C
	}
	for {
		// Take the channel before looking at the state: a change between
		// the two closes this channel, so none is missed.
		interrupt := t.interrupt()
		if err := t.blocked(mode); err != nil {
			t.s.Forget(id)
			return fmt.Errorf("%s: %w", method, err)
		}
		if held == nil && mode == mainThread && t.dialogInTab() {
			// A dialog elsewhere in the tab may stop this target too (a
			// same-site frame shares its renderer): a short bound, then
			// the dialog is the reason.
			timer := time.NewTimer(dialogBound)
			defer timer.Stop()
			held = timer.C
		}
		select {
		case reply, ok := <-ch:
			if !ok {
				return t.s.Conn().ClosedErr()
			}
			return t.decodeReply(method, reply, res)
		case <-ctx.Done():
			t.s.Forget(id)
			return ctx.Err()
		case <-held:
			if t.dialogInTab() {
				t.s.Forget(id)
				return fmt.Errorf("%s: %w (its renderer is held by a dialog of the tab)", method, ErrDialogOpen)
			}
			held = nil
		case <-busy:
			t.s.Forget(id)
			t.mu.Lock()
			t.busy = true
			t.mu.Unlock()
			return fmt.Errorf("%s: %w (no answer in %s)", method, ErrPageBusy, t.b.busyTimeout())
		case <-t.s.Done():
			t.s.Forget(id)
			return fmt.Errorf("%s: %w", method, t.goneErr())
		case <-interrupt:
		}
	}
}

// dialogBound is how long a command in a tab with a dialog open waits for
// a target the dialog does not visibly hold before the dialog is taken for
// the reason it does not answer.
const dialogBound = time.Second

// dialogInTab reports whether a dialog is open anywhere in the target's tab.
func (t *tgt) dialogInTab() bool {
	if t.page == nil {
		return false
	}
	t.page.mu.Lock()
	defer t.page.mu.Unlock()
	return t.page.dialog != nil
}

func (t *tgt) decodeReply(method string, reply *cdproto.Message, res any) error {
	t.mu.Lock()
	t.busy = false // it answers
	t.mu.Unlock()
	if reply.Error != nil {
		if t.isClosed() {
			return fmt.Errorf("%s: %w", method, t.goneErr())
		}
		return gone(fmt.Errorf("%s: %w", method, reply.Error))
	}
	if res != nil && len(reply.Result) > 0 {
		if err := jsonv2.Unmarshal(reply.Result, res, chromedp.DefaultUnmarshalOptions); err != nil {
			return fmt.Errorf("%s: decoding result: %w", method, err)
		}
	}
	return nil
}

// blocked says why a command of mode cannot run in the target now, or nil.
func (t *tgt) blocked(mode callMode) error {
	// A gone browser wins over anything its last events said of the tab.
	if err := t.b.Gone(); err != nil {
		return err
	}
	if t.isClosed() {
		return t.goneErr()
	}
	t.mu.Lock()
	crashed := t.crashed
	t.mu.Unlock()
	if crashed && t.page != nil && t.page.t != t {
		return fmt.Errorf("%w: its renderer crashed", ErrFrameGone)
	}
	if p := t.page; p != nil && mode != browserSide {
		p.mu.Lock()
		pageCrashed, dialog := p.crashed, p.dialog
		p.mu.Unlock()
		if pageCrashed && mode == mainThread {
			return ErrCrashed
		}
		// A dialog stops the renderer of the frame that opened it; the
		// page's other processes (out-of-process iframes) still answer.
		if dialog != nil && (mode == navigation || t.renders(dialog.frame)) {
			return ErrDialogOpen
		}
	}
	return nil
}

// interrupt is closed when the tab's state changes in a way that may end a
// pending command (a dialog, a crash).
func (t *tgt) interrupt() <-chan struct{} {
	if t.page == nil {
		return nil
	}
	t.page.mu.Lock()
	defer t.page.mu.Unlock()
	return t.page.alert
}

func (t *tgt) isClosed() bool {
	select {
	case <-t.s.Done():
		return true
	default:
		return false
	}
}

// goneErr says why a closed target's session ended.
func (t *tgt) goneErr() error {
	if err := t.b.Gone(); err != nil {
		return err
	}
	if t.page != nil && t.page.t == t {
		return ErrTabClosed
	}
	return ErrFrameGone
}

// batch sends commands of one method in order without waiting between them,
// then waits for every reply: Chromium runs a session's commands in the
// order they arrive, so the sequence is kept without a round trip each.
func (t *tgt) batch(ctx context.Context, mode callMode, method string, params []any) error {
	if err := t.blocked(mode); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	type sent struct {
		id int64
		ch chan *cdproto.Message
	}
	all := make([]sent, 0, len(params))
	for _, p := range params {
		id, ch, err := t.s.Send(ctx, method, p)
		if err != nil {
			for _, s := range all {
				t.s.Forget(s.id)
			}
			return gone(err)
		}
		all = append(all, sent{id, ch})
	}
	for i, s := range all {
		if err := t.await(ctx, mode, method, s.id, s.ch, nil); err != nil {
			for _, rest := range all[i+1:] {
				t.s.Forget(rest.id)
			}
			return err
		}
	}
	return nil
}

// stopScript ends the script that keeps a busy target's main thread, so
// that a navigation can leave the page: a renderer running an endless
// script would never let the next document of its site in. Only a target
// that did not answer in time is touched (Runtime.terminateExecution on an
// idle one would end the next script that runs).
func (t *tgt) stopScript(ctx context.Context) {
	t.mu.Lock()
	busy := t.busy
	t.mu.Unlock()
	if !busy {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, cleanupTimeout)
	defer cancel()
	if err := t.s.Call(ctx, runtime.CommandTerminateExecution, nil, nil); err == nil {
		t.mu.Lock()
		t.busy = false
		t.mu.Unlock()
	}
}

// renders reports whether the target runs frame's document: its own top
// frame, or a frame it has a script context in.
func (t *tgt) renders(frame cdp.FrameID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return frame == "" || t.mainID == frame || t.contexts[frame] != nil
}
