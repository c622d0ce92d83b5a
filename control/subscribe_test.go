package control

import (
	"context"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/spec"
)

func receive(ctx context.Context, t *testing.T, ch <-chan Event, n int) []Event {
	t.Helper()
	var got []Event
	for len(got) < n {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatalf("event channel closed after %d events, want %d", len(got), n)
			}
			got = append(got, e)
		case <-ctx.Done():
			t.Fatalf("received %d events, want %d: %v", len(got), n, ctx.Err())
		}
	}
	return got
}

func TestSubscribeOrder(t *testing.T) {
	ctx := testContext(t)
	c := New(&Options{Now: fixedNow})
	events, cancel := c.Subscribe()
	defer cancel()
	run(ctx, t, c, []step{
		{op: "request"}, {op: "take"}, {op: "request"}, {op: "handback"},
		{op: "request"}, {op: "cancel"}, {op: "take"}, {op: "cancel"},
	})
	agent, user := spec.ControllerAgent, spec.ControllerUser
	o := func(n string) *Offer {
		return &Offer{ID: "offer-" + n, Reason: "check in", Step: &Step{Ref: "e7", Kind: "submission"}, At: t0}
	}
	terminal := &Proof{Kind: ProofTerminal} // the takes here are the terminal UI's
	want := []Event{
		{Time: t0, Kind: Offered, From: agent, To: agent, Offer: o("1")},
		{Time: t0, Kind: Taken, From: agent, To: user, Offer: o("1"), Proof: terminal},
		{Time: t0, Kind: Offered, From: user, To: user, Offer: o("2")},
		{Time: t0, Kind: HandedBack, From: user, To: agent, Offer: o("2"), Epoch: 1},
		{Time: t0, Kind: Offered, From: agent, To: agent, Offer: o("3"), Epoch: 1},
		{Time: t0, Kind: Declined, From: agent, To: agent, Offer: o("3"), Epoch: 1},
		{Time: t0, Kind: Taken, From: agent, To: user, Epoch: 1, Proof: terminal},
		{Time: t0, Kind: Cancelled, From: user, To: agent, Epoch: 2},
	}
	got := receive(ctx, t, events, len(want))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestSubscribeNeverBlocksSender raises many offers to a subscriber that
// reads nothing, then checks that every event arrives in order.
func TestSubscribeNeverBlocksSender(t *testing.T) {
	ctx := testContext(t)
	c := New(nil)
	events, cancel := c.Subscribe()
	defer cancel()
	const n = 1000
	for range n {
		c.RequestUser("r", nil)
	}
	got := receive(ctx, t, events, n)
	for i, e := range got {
		if want := "offer-" + strconv.Itoa(i+1); e.Offer.ID != want {
			t.Fatalf("event %d is %s, want %s", i, e.Offer.ID, want)
		}
	}
}

func TestUnsubscribeClosesChannel(t *testing.T) {
	ctx := testContext(t)
	c := New(nil)
	events, cancel := c.Subscribe()
	c.RequestUser("r", nil)
	cancel()
	cancel() // safe twice
	c.RequestUser("after", nil)
	for {
		select {
		case _, ok := <-events:
			if !ok {
				return
			}
		case <-ctx.Done():
			t.Fatal("channel not closed after cancel")
		}
	}
}

// TestKinds: each kind's name, and which change the holder.
func TestKinds(t *testing.T) {
	for _, tc := range []struct {
		kind    Kind
		name    string
		changes bool
	}{
		{Offered, "offered", false},
		{Declined, "declined", false},
		{Taken, "taken", true},
		{HandedBack, "handed back", true},
		{Cancelled, "cancelled", true},
		{Kind(0), "kind(0)", false},
	} {
		if got := tc.kind.String(); got != tc.name {
			t.Errorf("Kind(%d).String() = %q, want %q", tc.kind, got, tc.name)
		}
		if got := tc.kind.ChangesHolder(); got != tc.changes {
			t.Errorf("%s.ChangesHolder() = %v, want %v", tc.kind, got, tc.changes)
		}
	}
}
