package control

import (
	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/internal/queue"
)

// Subscribe returns a channel that receives every later [Event], in order,
// and a function that ends the subscription and closes the channel.
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

// publishLocked delivers e to every subscriber and the audit log. c.mu must
// be held, so that every subscriber and the log see one order.
func (c *Control) publishLocked(e Event) {
	for s := range c.subs {
		ev := e
		ev.Offer = e.Offer.clone()
		s.Push(ev)
	}
	c.auditRecord(auditEntryFor(e))
}

// auditEntryFor turns an event into its audit line. Offers record the
// model's reason and the marked element's ref, never page text.
func auditEntryFor(e Event) audit.Entry {
	a := audit.Entry{Time: e.Time, Event: audit.Event(e.Kind), How: string(e.How), By: string(e.By), ControlEpoch: e.Epoch, Device: e.Device,
		UserMessage: e.UserMessage}
	if e.Offer != nil {
		a.Offer = e.Offer.ID
		a.Reason = e.Offer.Reason
		if e.Offer.Step != nil {
			a.Ref = e.Offer.Step.Ref
		}
	}
	if e.Kind == KindControl {
		a.From, a.To = string(e.From), string(e.To)
		a.Reason = ""
	}
	return a
}
