package mcpserver

import (
	"context"
	"time"
)

// reapIdle ends, until ctx ends, every session with no request in flight
// and none for idle, and every session with no tool call within
// firstCall of its start (it holds no browser, only a --max-sessions
// slot): its runtime closes (reason "idle") and then its MCP session.
func (r *registry) reapIdle(ctx context.Context, idle, firstCall time.Duration) {
	every := idle
	if firstCall > 0 && (every <= 0 || firstCall < every) {
		every = firstCall
	}
	tick := time.NewTicker(min(max(every/4, 10*time.Millisecond), time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			r.mu.Lock()
			var stale []*entry
			for _, e := range r.byConn {
				unused := firstCall > 0 && !e.started.Load() && now.Sub(e.began) >= firstCall
				if unused || idle > 0 && e.idleSince(now) >= idle {
					stale = append(stale, e)
				}
			}
			r.mu.Unlock()
			for _, e := range stale {
				r.end(ctx, e, EndIdle)
				_ = e.ss.Close()
			}
		}
	}
}

// busy counts a request of the session starting (+1) or ending (-1).
func (e *entry) busy(d int) {
	e.mu.Lock()
	e.inFlight += d
	e.lastSeen = time.Now()
	e.mu.Unlock()
}

// idleSince is how long the session has had no request, or 0 while one is
// in flight.
func (e *entry) idleSince(now time.Time) time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.inFlight > 0 {
		return 0
	}
	return now.Sub(e.lastSeen)
}
