package gate

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
)

// This file keeps the window in which a new document arms the guard at its
// start (marks.NewDocumentGuard): a page that a navigation of the agent's
// action loads, and that submits its marked form on load, is judged as the
// action's. The window opens beside the action's check (until the action's
// bound and the window after it), is shortened after the action to the
// window after it (2 s) in the background, off the call's path, and a take
// of control ends it at once, before the User's input can come.
//
// An install costs each tab and frame process of the Session a round trip,
// so a burst of actions does not pay two each: an open whose window is
// still installed with at least newDocumentsSlack less than it asks for
// installs nothing, and the shortening waits newDocumentsSettle, so that
// the next action of a burst, which opens the window again, supersedes it.

// newDocumentGuard is a surface whose browser context can arm the guard
// in the documents of the Company's website (domain, the Company's
// organization.domain and its subdomains) its navigations load from now
// on, until until (see marks.NewDocumentGuard; a zero until arms none).
type newDocumentGuard interface {
	GuardNewDocuments(ctx context.Context, domain string, until time.Time) error
}

func (s *pageSurface) GuardNewDocuments(ctx context.Context, domain string, until time.Time) error {
	return s.p.Context().SetScript(ctx, marks.NewDocumentKey, marks.NewDocumentGuard(domain, until))
}

// Bounds of the window for new documents: while the action runs (the
// guard's own bound of an action, GUARD_MS in guard.js), and the window
// after it; and of one install of the script that keeps it.
const (
	newDocumentsDuring = 5 * time.Second
	newDocumentsAfter  = 2 * time.Second
	newDocumentsWait   = 2 * time.Second
)

// Bounds of a burst (see above); variables so that a test on a loaded
// machine can lengthen them.
var (
	newDocumentsSlack  = time.Second
	newDocumentsSettle = 250 * time.Millisecond
)

// newDocumentsWindow orders the installs that open, shorten and end the
// window, all under mu (an install replaces the one before it, so their
// order is the order of mu):
//
//   - each run that opens it takes a new generation, and its shortening
//     after the action (in the background) is dropped once a later run
//     opened it again: a late close never shortens a newer run's window;
//   - a take of control in epoch userEpoch ends it, and no run of that
//     epoch or an older one opens or shortens it again: a take always wins.
//
// pending counts the shortenings in flight, which Gate.Close waits for.
type newDocumentsWindow struct {
	domain string // the Company's organization.domain; "" opens no window

	mu         sync.Mutex
	gen        uint64    // the last run's window
	installed  time.Time // the end of the window installed last; zero when ended (or unknown)
	taken      bool
	userEpoch  uint64
	beforeTake *takeMark // for ResumeNewDocuments
	pending    sync.WaitGroup
	// after is the end of the window after the last action that was
	// dispatched (Unix ns): an action that dispatched nothing ends the
	// window no earlier.
	after atomic.Int64
}

// install installs the window until until (zero: ended), under w.mu.
func (w *newDocumentsWindow) install(ctx context.Context, ng newDocumentGuard, until time.Time) error {
	w.installed = time.Time{} // unknown, should it fail
	if err := ng.GuardNewDocuments(ctx, w.domain, until); err != nil {
		return err
	}
	w.installed = until
	return nil
}

// openNewDocuments opens the run's window beside its check, until the
// action's bound and the window after it. The surface must be one that
// can, and the gate must know the Company's website.
func (r *run) openNewDocuments(ctx context.Context) {
	ng, ok := r.s.(newDocumentGuard)
	w := &r.g.newDocs
	if !ok || w.domain == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gen++
	r.newDocuments = w.gen
	if w.taken && r.turn <= w.userEpoch {
		return // the User took control in this run's epoch: it stays ended
	}
	until := time.Now().Add(newDocumentsDuring + newDocumentsAfter)
	if !w.installed.Before(until.Add(-newDocumentsSlack)) {
		return // the last run's window still covers this one's bound
	}
	if err := w.install(ctx, ng, until); err != nil {
		r.g.log.Debug("arming the guard in new documents failed", "err", err)
	}
}

// closeNewDocuments shortens the run's window (if it opened one) to the
// guard's window after the action, newDocumentsSettle later unless another
// run opened it by then, or ends it at once if nothing was dispatched: in
// the background, so the call does not wait for it.
func (r *run) closeNewDocuments() {
	if r.newDocuments == 0 {
		return
	}
	ng := r.s.(newDocumentGuard) // openNewDocuments checked it
	w := &r.g.newDocs
	var until time.Time
	if len(r.disarmed) > 0 { // disarmed or tried to: the action ran
		until = time.Now().Add(newDocumentsAfter)
		w.after.Store(until.UnixNano())
	} else if last := time.Unix(0, w.after.Load()); last.After(time.Now()) {
		until = last // the last action's window after goes on
	}
	gen, turn, log := r.newDocuments, r.turn, r.g.log
	w.pending.Go(func() {
		if !until.IsZero() {
			time.Sleep(newDocumentsSettle)
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.gen != gen || (w.taken && turn <= w.userEpoch) {
			return // a later run opened it, or a take ended it
		}
		ctx, cancel := context.WithTimeout(context.Background(), newDocumentsWait)
		defer cancel()
		if err := w.install(ctx, ng, until); err != nil {
			log.Debug("closing the window for new documents failed", "err", err)
		}
	})
}

// wait waits, within ctx, for the shortenings in flight.
func (w *newDocumentsWindow) wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		w.pending.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("closing the gate: the window for new documents: %w", ctx.Err())
	}
}

// EndNewDocuments ends the window in which new documents arm the guard
// at their start, for the User's take of control in control epoch epoch:
// a step of the take, before the frames' guards stand down and before
// the User's input can come, so that no document the User's own
// navigation loads is guarded. An action of that epoch still running
// does not open it again, and its shortening after the action is dropped.
func (g *Gate) EndNewDocuments(ctx context.Context, epoch uint64) error {
	w := &g.newDocs
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.taken || w.userEpoch < epoch {
		w.beforeTake = &takeMark{taken: w.taken, userEpoch: w.userEpoch, epoch: epoch}
	}
	w.taken, w.userEpoch = true, max(w.userEpoch, epoch)
	// Not g.current(), which is the running action's (under the sem).
	var p *browser.Page
	if g.page != nil && w.domain != "" {
		p = g.page()
	}
	if p == nil {
		w.installed = time.Time{} // unknown: the next run's opening installs
		return nil
	}
	return w.install(ctx, &pageSurface{p: p}, time.Time{})
}

// ResumeNewDocuments undoes EndNewDocuments of epoch when that take
// failed: the agent still holds control, and its next actions open the
// window again (without it, no action of that epoch would).
func (g *Gate) ResumeNewDocuments(epoch uint64) {
	w := &g.newDocs
	w.mu.Lock()
	defer w.mu.Unlock()
	if b := w.beforeTake; b != nil && b.epoch == epoch {
		w.taken, w.userEpoch, w.beforeTake = b.taken, b.userEpoch, nil
	}
}

// takeMark is the window's order before the take of epoch ended it.
type takeMark struct {
	taken            bool
	userEpoch, epoch uint64
}
