package gate_test

import (
	"testing"
	"testing/synctest"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/gate/gatetest"
	"github.com/poppy-browser/poppy-browser/spec"
)

// A screenshot and a snapshot queued behind a slow read, which took their
// place before the User took control, are refused once they get it: the
// gate checks the holder again after an action gets its slot, and the read
// in flight during the take is thrown away too.
func TestQueuedReadsRefusedAfterATake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := gatetest.New()
		ctx := t.Context()
		if r := f.Gate.Do(ctx, gate.Snapshot{}); r.Outcome != spec.OutcomeDone {
			t.Fatalf("snapshot: %+v", r)
		}
		release := f.Page.HoldScans()
		defer release()
		results := make(chan gate.Result, 3)
		for _, a := range []gate.Action{gate.Wait{Seconds: 20}, gate.Screenshot{}, gate.Snapshot{}} {
			go func() { results <- f.Gate.Do(ctx, a) }()
			synctest.Wait() // the action is in flight, or queued for its slot
		}
		if err := f.Control.User().Take(ctx); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			r := <-results
			if r.Outcome != spec.OutcomeDenied || r.Reason != spec.ReasonUserHasControl {
				t.Errorf("after the take: got %s/%s (%s), want denied/user_has_control", r.Outcome, r.Reason, r.Message)
			}
		}
	})
}
