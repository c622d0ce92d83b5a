package mcpserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/spec"
)

// progressFunc reports how long a wait has run, of how long it may.
type progressFunc func(ctx context.Context, done, total time.Duration)

// waitForControl waits up to seconds (bounded by MaxWaitForControl) until
// the User's turn is over: while an offer is open, until it is answered
// and, if the User took control, until they end it; while the User holds
// control, until they end it. It calls progress (when not nil) every
// interval while it waits.
func waitForControl(ctx context.Context, ctl gate.Controls, seconds float64, progress *progressEvery) ControlStatus {
	d := max(min(time.Duration(seconds*float64(time.Second)), MaxWaitForControl), 0)
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if progress != nil {
		var wg sync.WaitGroup
		wg.Go(func() { progress.run(wctx, d) })
		// The last notice is sent before the result, never after it.
		defer wg.Wait()
		defer cancel()
	}
	changed := make(chan struct{}, 1)
	stop := control.Watch(wctx, ctl, func(control.Event) {
		select {
		case changed <- struct{}{}:
		default: // a change not yet looked at is pending already
		}
	})
	defer stop()
	for {
		st := ctl.Status()
		if st.Controller == spec.ControllerAgent && st.Offer == nil {
			return statusOf(st, false)
		}
		select {
		case <-wctx.Done():
			return statusOf(ctl.Status(), true)
		case <-changed:
		}
	}
}

// progressEvery sends a call's progress notifications.
type progressEvery struct {
	interval time.Duration
	send     progressFunc
}

// run calls send every interval until ctx ends.
func (p *progressEvery) run(ctx context.Context, total time.Duration) {
	start := time.Now()
	tick := time.NewTicker(p.interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			p.send(ctx, now.Sub(start), total)
		}
	}
}

// progress returns the progress notifier of a call that carries a progress
// token, or nil: a client with a request timeout resets it on each notice,
// so a wait for the User (up to a minute) is not given up on.
func (s *Server) progress(req *mcp.CallToolRequest) *progressEvery {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return nil
	}
	ss := req.Session
	return &progressEvery{interval: s.opts.ProgressEvery, send: func(ctx context.Context, done, total time.Duration) {
		// Sent in the call's context, so it travels with the call (over
		// HTTP, on the call's own stream). A client that has gone only misses the notice.
		_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token,
			Progress:      done.Seconds(),
			Total:         total.Seconds(),
			Message:       fmt.Sprintf("waiting for control to come back from the User (%.0f s of %.0f s)", done.Seconds(), total.Seconds()),
		})
	}}
}
