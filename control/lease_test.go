package control_test

import (
	"context"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestTakeWaitsForTheAgentInputInFlight: no agent input lands after any
// frame reads "user" (section 6: the value changes as soon as control
// changes), and once the User holds control no agent action starts.
func TestTakeWaitsForTheAgentInputInFlight(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	applied := make(chan spec.Controller, 4)
	c := control.New(&control.Options{Handover: &control.Hooks{Apply: func(_ context.Context, to spec.Controller) error {
		applied <- to
		return nil
	}}})
	end, ok := c.BeginAgentAction()
	if !ok {
		t.Fatal("the agent could not start an action while it holds control")
	}
	took := make(chan error, 1)
	go func() { took <- c.User().Take(ctx) }()
	select {
	case to := <-applied:
		t.Fatalf("frames were switched to %s while agent input was in flight", to)
	case err := <-took:
		t.Fatalf("take finished while agent input was in flight: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	end()
	if err := <-took; err != nil {
		t.Fatal(err)
	}
	if to := <-applied; to != spec.ControllerUser {
		t.Fatalf("applied %s", to)
	}
	if _, ok := c.BeginAgentAction(); ok {
		t.Fatal("an agent action started while the User holds control")
	}
	// A take that gives up leaves nothing locked.
	if err := c.User().HandBack(ctx); err != nil {
		t.Fatal(err)
	}
	<-applied
	end, ok = c.BeginAgentAction()
	if !ok {
		t.Fatal("the agent cannot act after the hand back")
	}
	short, cancelShort := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancelShort()
	if err := c.User().Take(short); err == nil {
		t.Fatal("a take finished while agent input was in flight")
	}
	end()
	if err := c.User().Take(ctx); err != nil {
		t.Fatalf("take after a given-up take: %v", err)
	}
}

// TestTakeStopsTheAgentNavigation: a take does not wait for a page that
// may never load: it stops the agent's navigation, waits for its lease to
// end, and no agent action starts meanwhile.
func TestTakeStopsTheAgentNavigation(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	c := control.New(nil)
	stopped := make(chan struct{})
	end, ok := c.BeginAgentNavigation(func() { close(stopped) })
	if !ok {
		t.Fatal("the agent could not start a navigation while it holds control")
	}
	took := make(chan error, 1)
	go func() { took <- c.User().Take(ctx) }()
	select {
	case <-stopped:
	case <-ctx.Done():
		t.Fatal("the take never stopped the agent's navigation")
	}
	if _, ok := c.BeginAgentAction(); ok {
		t.Fatal("an agent action started while a take was under way")
	}
	select {
	case err := <-took:
		t.Fatalf("the take finished before the navigation's lease ended: %v", err)
	default:
	}
	end()
	select {
	case err := <-took:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("the take did not finish once the navigation's lease ended")
	}
	if c.Holder() != spec.ControllerUser {
		t.Fatalf("holder %s after the take", c.Holder())
	}
	end() // a second end changes nothing
}
