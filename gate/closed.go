package gate

import (
	"context"
	"errors"

	"github.com/poppy-browser/poppy-browser/spec"
)

// The gate runs nothing in the background, so its end is a channel, not a
// context of its own: Close closes g.closed.

// isClosed says whether Close was called.
func (g *Gate) isClosed() bool {
	select {
	case <-g.closed:
		return true
	default:
		return false
	}
}

// whenClosed calls f if the gate closes before the returned stop is
// called (context.AfterFunc, for the gate's closed channel).
func (g *Gate) whenClosed(f func()) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-g.closed:
			f()
		case <-done:
		}
	}()
	return func() { close(done) }
}

// errShuttingDown is the cause of an action's context when the gate closes.
var errShuttingDown = errors.New("the runtime is shutting down")

func (g *Gate) shuttingDown() Result {
	return Result{Outcome: spec.OutcomeFailed, Reason: spec.ReasonShuttingDown,
		Message: "The browser runtime is shutting down; nothing more runs.", Page: g.lastPage()}
}

// unlessStopped is res, unless Close stopped the action (ctx's cause) and
// res says done: what an action read or did after its context ended is
// not the page's truth (a snapshot would be an empty page).
func (g *Gate) unlessStopped(ctx context.Context, res Result) Result {
	if res.Outcome != spec.OutcomeDone || !errors.Is(context.Cause(ctx), errShuttingDown) {
		return res
	}
	out := g.shuttingDown()
	out.Message = "The browser runtime shut down during the action, which it stopped before its end; nothing more runs."
	return out
}
