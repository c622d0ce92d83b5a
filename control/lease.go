package control

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/poppy-browser/poppy-browser/spec"
)

// LeaseWait bounds how long a take waits for the agent's action in flight
// to end. Input holds its lease for milliseconds and a navigation is
// stopped at once, so the bound is only reached when the browser hangs;
// the take then fails and the User can try again.
const LeaseWait = 10 * time.Second

// errLeaseHeld is a take's error when the agent's action did not end in
// time.
var errLeaseHeld = errors.New("the agent's action in flight did not end within " + LeaseWait.String())

// lease is one agent action in flight (see [Control.BeginAgentAction]).
type lease struct {
	stop func() // stops the action; nil for input, which a take waits for
}

// BeginAgentAction starts an agent action that dispatches input: ok is
// false when the User holds control (or is taking it). Until end is
// called a take waits, so the action's input cannot land after any frame
// reads "user". Call end as soon as the action's input is done; input
// holds the lease for milliseconds.
func (c *Control) BeginAgentAction() (end func(), ok bool) {
	return c.beginLease(nil)
}

// BeginAgentNavigation starts an agent action that loads a page (navigate,
// back): ok is false when the User holds control (or is taking it). A take
// does not wait for a page that may never load: it calls stop, which must
// make the navigation end promptly (cancel it and stop the loading), and
// then waits for end. Call end once the navigation has ended or stopped.
func (c *Control) BeginAgentNavigation(stop func()) (end func(), ok bool) {
	if stop == nil {
		stop = func() {}
	}
	return c.beginLease(stop)
}

func (c *Control) beginLease(stop func()) (func(), bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.taking || c.st.Controller == spec.ControllerUser {
		return nil, false
	}
	l := &lease{stop: stop}
	c.leases[l] = struct{}{}
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			delete(c.leases, l)
			if len(c.leases) == 0 && c.leasesEnded != nil {
				close(c.leasesEnded)
				c.leasesEnded = nil
			}
		})
	}, true
}

// endLeases is a take's first step: it refuses new leases, stops every
// navigation in flight and waits, bounded by ctx and [LeaseWait], for
// every lease to end. On success the caller calls release once the holder
// has changed; on error nothing stays refused.
func (c *Control) endLeases(ctx context.Context) (release func(), err error) {
	c.mu.Lock()
	c.taking = true
	var stops []func()
	for l := range c.leases {
		if l.stop != nil {
			stops = append(stops, l.stop)
		}
	}
	var ended chan struct{}
	if len(c.leases) > 0 {
		ended = make(chan struct{})
		c.leasesEnded = ended
	}
	c.mu.Unlock()
	release = func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.taking = false
		c.leasesEnded = nil
	}
	for _, stop := range stops {
		stop()
	}
	if ended == nil {
		return release, nil
	}
	t := time.NewTimer(LeaseWait)
	defer t.Stop()
	select {
	case <-ended:
		return release, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	case <-t.C:
		release()
		return nil, errLeaseHeld
	}
}
