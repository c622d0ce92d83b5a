package gate_test

import (
	"testing"
	"testing/synctest"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/gate/gatetest"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestCloseStopsTheActionInFlight: Close stops the action in flight (a
// wait on a page whose reads never answer) and waits for it; it and every
// later action answer failed/shutting_down, and Close again is harmless.
func TestCloseStopsTheActionInFlight(t *testing.T) {
	// A snapshot stopped by Close read nothing: it must not answer done
	// with an empty page.
	for _, a := range []gate.Action{gate.Wait{Seconds: 20}, gate.Snapshot{}} {
		t.Run(a.Tool(), func(t *testing.T) { closeStops(t, a) })
	}
}

func closeStops(t *testing.T, a gate.Action) {
	synctest.Test(t, func(t *testing.T) {
		f := gatetest.New()
		ctx := t.Context()
		release := f.Page.HoldScans() // never released before Close
		defer release()
		inFlight := make(chan gate.Result, 1)
		go func() { inFlight <- f.Gate.Do(ctx, a) }()
		synctest.Wait() // the action is in flight
		if err := f.Gate.Close(ctx); err != nil {
			t.Fatalf("close: %v", err)
		}
		select {
		case r := <-inFlight:
			if r.Outcome != spec.OutcomeFailed || r.Reason != spec.ReasonShuttingDown {
				t.Errorf("the action in flight: %s/%s (%s), want failed/shutting_down", r.Outcome, r.Reason, r.Message)
			}
		default:
			t.Fatal("Close returned before the action in flight did")
		}
		if r := f.Gate.Do(ctx, gate.Snapshot{}); r.Outcome != spec.OutcomeFailed || r.Reason != spec.ReasonShuttingDown {
			t.Errorf("an action after Close: %s/%s, want failed/shutting_down", r.Outcome, r.Reason)
		}
		if err := f.Gate.Close(ctx); err != nil {
			t.Errorf("second close: %v", err)
		}
	})
}
