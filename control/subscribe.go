package control

import (
	"context"

	"github.com/poppy-browser/poppy-browser/internal/queue"
)

// Subscribe returns a channel that receives every later [Event], in order,
// and a function that ends the subscription and closes the channel. Most
// readers want [Watch], which owns the reading goroutine.
//
// The sender never blocks: each subscription has its own unbounded queue
// ([queue.Queue]), drained into the channel by one goroutine it owns. A slow
// reader loses nothing; a reader that stops reading holds its queue in
// memory until it calls the cancel function, which it must do: cancel stops
// the goroutine, waits for it, drops events not yet received and closes the
// channel. It is safe to call more than once.
//
// Events that happened before Subscribe are not replayed; read
// [Control.Status] after subscribing for the current state.
func (c *Control) Subscribe() (<-chan Event, func()) {
	q := queue.New[Event]()
	c.mu.Lock()
	c.subs[q] = struct{}{}
	c.mu.Unlock()
	cancel := func() {
		c.mu.Lock()
		delete(c.subs, q)
		c.mu.Unlock()
		q.Stop()
	}
	return q.Out(), cancel
}

// Source is what [Watch] reads: a [*Control], or an interface over one
// (the gate's view of control).
type Source interface {
	Subscribe() (<-chan Event, func())
}

// Watch calls fn with every event of c from now on, in order, from one
// goroutine it owns, until ctx is done or stop is called. It subscribes
// before it returns, so no later event is missed; read [Control.Status]
// after it for the current state.
//
// stop ends the subscription and waits until fn has returned for the last
// time; after it, fn is not called again. It is safe to call more than
// once, and must not be called from fn (cancel ctx to end from there).
// When ctx is done the goroutine ends by itself; stop must still be
// called to wait for it.
func Watch(ctx context.Context, c Source, fn func(Event)) (stop func()) {
	events, unsubscribe := c.Subscribe()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer unsubscribe()
		for {
			select {
			case <-ctx.Done():
				return
			case e, ok := <-events:
				if !ok || ctx.Err() != nil {
					return
				}
				fn(e)
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// publishLocked delivers e to every subscriber and the audit log. c.mu must
// be held, so that every subscriber and the log see one order.
func (c *Control) publishLocked(e Event) {
	for s := range c.subs {
		ev := e
		ev.Offer = e.Offer.clone()
		ev.Device = cloneDevice(e.Device)
		s.Push(ev)
	}
	if c.audit == nil {
		return
	}
	if err := c.audit.RecordControl(e); err != nil {
		c.logger.Error("audit record failed", "event", e.Kind.String(), "err", err)
	}
}
