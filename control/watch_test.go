package control

import (
	"context"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWatch: fn sees every event raised after Watch returns, in order,
// from one goroutine (none before it is replayed); after stop returns it
// is never called again and the subscription is gone.
func TestWatch(t *testing.T) {
	ctx := testContext(t)
	c := New(&Options{Now: fixedNow})
	c.RequestUser("before", nil) // not replayed
	var (
		got  []Kind
		seen = make(chan struct{}, 16)
	)
	stop := Watch(ctx, c, func(e Event) {
		got = append(got, e.Kind) // one goroutine: no lock needed (-race)
		seen <- struct{}{}
	})
	run(ctx, t, c, []step{{op: "request"}, {op: "take"}, {op: "handback"}, {op: "request"}, {op: "cancel"}})
	for range 5 {
		select {
		case <-seen:
		case <-ctx.Done():
			t.Fatalf("fn saw %v, want 5 events", got)
		}
	}
	stop()
	stop() // safe twice
	c.RequestUser("after", nil)
	if diff := cmp.Diff([]Kind{Offered, Taken, HandedBack, Offered, Declined}, got); diff != "" {
		t.Errorf("kinds seen (-want +got):\n%s", diff)
	}
	c.mu.Lock()
	subs := len(c.subs)
	c.mu.Unlock()
	if subs != 0 {
		t.Errorf("%d subscriptions left after stop", subs)
	}
}

// TestWatchEndsWithContext: when ctx ends the watch unsubscribes by
// itself, and stop still waits for it.
func TestWatchEndsWithContext(t *testing.T) {
	ctx := testContext(t)
	c := New(nil)
	wctx, cancel := context.WithCancel(ctx)
	calls := 0
	stop := Watch(wctx, c, func(Event) { calls++ })
	cancel()
	for {
		c.mu.Lock()
		n := len(c.subs)
		c.mu.Unlock()
		if n == 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the watch kept its subscription after its ctx ended")
		default:
			runtime.Gosched()
		}
	}
	stop()
	c.RequestUser("after", nil)
	if calls != 0 {
		t.Errorf("fn called %d times after its ctx ended", calls)
	}
}
