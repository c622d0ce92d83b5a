package control

import (
	"sync"

	"github.com/poppy-browser/poppy-browser/audit"
)

// Subscribe returns a channel that receives every later [Event], in order,
// and a function that ends the subscription and closes the channel.
//
// The sender never blocks: each subscription has its own unbounded queue,
// drained into the channel by one goroutine the subscription owns. A slow
// reader loses nothing; a reader that stops reading holds its queue in
// memory until it calls the cancel function, which it must do: cancel stops
// the goroutine, waits for it, drops events not yet received and closes the
// channel. It is safe to call more than once.
//
// Events that happened before Subscribe are not replayed; read
// [Control.Status] after subscribing for the current state.
func (c *Control) Subscribe() (<-chan Event, func()) {
	s := &subscriber{
		signal:  make(chan struct{}, 1),
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
		out:     make(chan Event),
	}
	c.mu.Lock()
	c.subs[s] = struct{}{}
	c.mu.Unlock()
	go s.pump()
	var once sync.Once
	cancel := func() {
		once.Do(func() {
			c.mu.Lock()
			delete(c.subs, s)
			c.mu.Unlock()
			close(s.done)
			<-s.stopped
		})
	}
	return s.out, cancel
}

type subscriber struct {
	mu      sync.Mutex
	queue   []Event
	signal  chan struct{} // one pending wake-up for pump
	done    chan struct{} // closed by cancel
	stopped chan struct{} // closed when pump has returned
	out     chan Event
}

func (s *subscriber) push(e Event) {
	s.mu.Lock()
	s.queue = append(s.queue, e)
	s.mu.Unlock()
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

func (s *subscriber) pump() {
	defer close(s.stopped)
	defer close(s.out)
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			s.mu.Unlock()
			select {
			case <-s.signal:
				continue
			case <-s.done:
				return
			}
		}
		e := s.queue[0]
		s.queue[0] = Event{}
		s.queue = s.queue[1:]
		s.mu.Unlock()
		select {
		case s.out <- e:
		case <-s.done:
			return
		}
	}
}

// publishLocked delivers e to every subscriber and the audit log. c.mu must
// be held, so that every subscriber and the log see one order.
func (c *Control) publishLocked(e Event) {
	for s := range c.subs {
		ev := e
		ev.Offer = e.Offer.clone()
		s.push(ev)
	}
	c.auditRecord(auditEntryFor(e))
}

// auditEntryFor turns an event into its audit line. Offers record the
// model's reason and the marked element's ref, never page text.
func auditEntryFor(e Event) audit.Entry {
	a := audit.Entry{Time: e.Time, Event: audit.Event(e.Kind), How: string(e.How), By: string(e.By), ControlEpoch: e.Epoch}
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
