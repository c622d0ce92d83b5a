package supervisor

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/poppy-browser/poppy-browser/control"
)

// worker is work that runs beside a Session (the User's navigations,
// notices, offer lines, the injector's background work) until ctx ends:
// one of the Session's errgroup, which [Session.Close] ends and waits for.
// An error it returns ends all of the Session's background work.
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

// stage says when Close ends a part of a Session's background work: the
// work beside it first (before its gate closes), the injector's after the
// live view (a take the User began there is finished or released).
type stage int

const (
	stageBeside stage = iota
	stageInjector
	stages // the number of stages
)

// part is one worker of a Session, built by Open and run at its end.
type part struct {
	stage stage
	name  string // in the log and the error when it fails
	run   worker
}

// work is a Session's background work: one errgroup whose parts end, and
// are waited for, stage by stage (Session.Close's order). It keeps no
// context: each stage's ends with its end func, and all of them but the
// injector's with the first part that fails.
type work struct {
	parts []part // added by Open, started by start
	group *errgroup.Group
	ends  [stages]context.CancelFunc
	waits [stages]sync.WaitGroup
}

// run adds w to the Session's work beside it; it starts at the end of
// Open.
func (ss *Session) run(w worker) {
	ss.work.parts = append(ss.work.parts, part{stage: stageBeside, name: "work beside the session", run: w})
}

// startWork runs every part in the Session's errgroup, each stage under
// its own ctx (a child of the group's, which keeps ctx's values but not
// its end: a part that fails ends them all, but the injector's, which a
// take needs while the Session lives). A failure is logged when it
// happens and returned by Close.
func (ss *Session) startWork(ctx context.Context) {
	w := &ss.work
	base := context.WithoutCancel(ctx)
	g, gctx := errgroup.WithContext(base)
	w.group = g
	var ctxs [stages]context.Context
	for st := range stages {
		parent := gctx
		if st == stageInjector {
			// Ended by Close only: while the Session lives, a take needs
			// it to set busy frames, whatever other work failed.
			parent = base
		}
		ctxs[st], w.ends[st] = context.WithCancel(parent)
	}
	for _, p := range w.parts {
		wg := &w.waits[p.stage]
		wg.Add(1)
		g.Go(func() error {
			defer wg.Done()
			if err := p.run(ctxs[p.stage]); err != nil {
				ss.log.Error("session work failed; the session's background work ends", "work", p.name, "err", err)
				return fmt.Errorf("%s: %w", p.name, err)
			}
			return nil
		})
	}
	w.parts = nil
}

// end ends the parts of stage st and waits for them within ctx.
func (w *work) end(ctx context.Context, st stage) error {
	if w.group == nil {
		return nil
	}
	w.ends[st]()
	return waitWithin(ctx, w.waits[st].Wait, "waiting for the session's work")
}

// wait ends every part and waits for the group within ctx: the error of
// the first part that failed, or ctx's.
func (w *work) wait(ctx context.Context) error {
	if w.group == nil {
		return nil
	}
	for _, end := range w.ends {
		end()
	}
	var err error
	if werr := waitWithin(ctx, func() { err = w.group.Wait() }, "waiting for the session's work"); werr != nil {
		return werr
	}
	return err
}

// waitWithin runs wait and returns when it does, or with ctx's error
// when ctx ends first (wait goes on in the background).
func waitWithin(ctx context.Context, wait func(), what string) error {
	done := make(chan struct{})
	go func() {
		wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
}
