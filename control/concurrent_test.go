package control_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestConcurrentUse hammers every method from many goroutines (run with
// -race) and checks that the event stream tells one consistent story.
func TestConcurrentUse(t *testing.T) {
	ctx := control.TestContext(t)
	c := control.New(&control.Options{
		Handover: &control.Hooks{Apply: func(context.Context, spec.Controller) error { return nil }},
		Audit:    audit.New(discard{}, nil),
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
					if err := u.HandBack(ctx); err != nil && !errors.Is(err, control.ErrNotHeld) {
						t.Error(err)
					}
				case 2:
					if err := u.Cancel(ctx); err != nil && !errors.Is(err, control.ErrNotHeld) {
						t.Error(err)
					}
				case 3:
					c.RequestUser("r", &control.Step{Ref: "e1"})
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
		var e control.Event
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
		if e.Kind.ChangesHolder() && e.To == spec.ControllerAgent {
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
