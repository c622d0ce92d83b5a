package supervisor

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/poppy-browser/poppy-browser/control"
)

// worker is work that runs beside a Session (the User's navigations,
// notices, offer lines) until ctx ends: one of the Session's errgroup,
// which [Session.Close] ends and waits for.
type worker func(ctx context.Context) error

// follow subscribes to ctl's events now, so that none made after it
// returns is missed, and returns the worker that calls fn with each of
// them, in order, until ctx ends.
func follow(ctl *control.Control, fn func(ctx context.Context, e control.Event)) worker {
	events, unsubscribe := ctl.Subscribe()
	return func(ctx context.Context) error {
		defer unsubscribe()
		for {
			select {
			case <-ctx.Done():
				return nil
			case e, ok := <-events:
				if !ok || ctx.Err() != nil {
					return nil
				}
				fn(ctx, e)
			}
		}
	}
}

// run starts w in the Session's group.
func (ss *Session) run(w worker) {
	ss.group.Go(func() error { return w(ss.life) })
}

// waitGroup waits for g within ctx; its workers return no error of their
// own, so the error is ctx's.
func waitGroup(ctx context.Context, g *errgroup.Group) error {
	done := make(chan error, 1)
	go func() { done <- g.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("waiting for the session's work: %w", ctx.Err())
	}
}
