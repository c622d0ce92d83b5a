package control

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/audit"
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
	want := []Event{
		{Time: t0, Kind: KindOffer, From: agent, To: agent, Offer: o("1"), By: ByAgent},
		{Time: t0, Kind: KindControl, From: agent, To: user, How: HowTake, Offer: o("1"), By: ByUser},
		{Time: t0, Kind: KindOffer, From: user, To: user, Offer: o("2"), By: ByAgent},
		{Time: t0, Kind: KindControl, From: user, To: agent, How: HowHandedBack, Offer: o("2"), Epoch: 1, By: ByUser},
		{Time: t0, Kind: KindOffer, From: agent, To: agent, Offer: o("3"), Epoch: 1, By: ByAgent},
		{Time: t0, Kind: KindOffer, From: agent, To: agent, How: HowDeclined, Offer: o("3"), Epoch: 1, By: ByUser},
		{Time: t0, Kind: KindControl, From: agent, To: user, How: HowTake, Epoch: 1, By: ByUser},
		{Time: t0, Kind: KindControl, From: user, To: agent, How: HowCancelled, Epoch: 2, By: ByUser},
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

// TestConcurrentUse hammers every method from many goroutines (run with
// -race) and checks that the event stream tells one consistent story.
func TestConcurrentUse(t *testing.T) {
	ctx := testContext(t)
	c := New(&Options{
		Apply: func(context.Context, spec.Controller) error { return nil },
		Audit: audit.New(discard{}, nil),
	})
	events, cancel := c.Subscribe()
	var wg sync.WaitGroup
	const workers, rounds = 8, 200
	for w := range workers {
		wg.Go(func() {
			u := c.User()
			for i := range rounds {
				switch (w + i) % 6 {
				case 0:
					_ = u.Take(ctx)
				case 1:
					if err := u.HandBack(ctx); err != nil && !errors.Is(err, ErrNotHeld) {
						t.Error(err)
					}
				case 2:
					if err := u.Cancel(ctx); err != nil && !errors.Is(err, ErrNotHeld) {
						t.Error(err)
					}
				case 3:
					c.RequestUser("r", &Step{Ref: "e1"})
				case 4:
					_ = c.Status()
					_ = c.Holder()
					c.Observed()
				case 5:
					short, stop := context.WithCancel(ctx)
					stop()
					_, _ = c.WaitForAgent(short)
				}
			}
		})
	}
	wg.Wait()
	final := c.Status()
	if final.Epoch == 0 {
		t.Fatal("no hand back happened; the test exercised nothing")
	}
	c.RequestUser("end", nil) // sentinel: every earlier event comes before it
	defer cancel()

	holder, epoch := spec.ControllerAgent, uint64(0)
	for {
		var e Event
		select {
		case e = <-events:
		case <-ctx.Done():
			t.Fatalf("waiting for the sentinel event: %v", ctx.Err())
		}
		if e.Offer != nil && e.Offer.Reason == "end" {
			break
		}
		if e.From != holder {
			t.Fatalf("event %+v starts from %q, holder was %q", e, e.From, holder)
		}
		if e.Kind == KindControl && e.To == spec.ControllerAgent {
			epoch++
		}
		if e.Epoch != epoch {
			t.Fatalf("event %+v has epoch %d, want %d", e, e.Epoch, epoch)
		}
		holder = e.To
	}
	if holder != final.Controller || epoch != final.Epoch {
		t.Errorf("events end at %q epoch %d, status says %q epoch %d", holder, epoch, final.Controller, final.Epoch)
	}
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }
