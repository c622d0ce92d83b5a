package gate_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/gate/gatetest"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestSequenceRefusesANewAction: an action the gate has never seen is
// refused on a marked step and while the User holds control, and its
// dispatch never runs for it; on an allowed element it runs once.
func TestSequenceRefusesANewAction(t *testing.T) {
	ctx := t.Context()
	f := gatetest.New()
	if r := f.Gate.Do(ctx, gate.Snapshot{}); r.Outcome != spec.OutcomeDone {
		t.Fatalf("snapshot: %+v", r)
	}
	var n atomic.Int32

	// e4 is the Check in button, which submits the marked form.
	r := f.Gate.Do(ctx, gate.NewProbe("e4", &n))
	if r.Outcome != spec.OutcomeDenied || r.Reason != spec.ReasonUserStep || r.Mark == nil || r.Mark.Touches != "e4" {
		t.Fatalf("probe on the marked step: got %s/%s %+v, want denied/user_step touching e4", r.Outcome, r.Reason, r.Mark)
	}
	if n.Load() != 0 || len(f.Page.Inputs()) != 0 {
		t.Fatalf("the refused probe dispatched %d times; the page got %q", n.Load(), f.Page.Inputs())
	}
	if !slices.ContainsFunc(auditLines(t, f), func(l map[string]any) bool {
		return l["tool"] == "browser_probe" && l["reason"] == "user_step"
	}) {
		t.Errorf("the refusal is not in the audit log:\n%s", f.Audit)
	}

	// e2 is the seat: allowed, so the probe runs, once.
	if r := f.Gate.Do(ctx, gate.NewProbe("e2", &n)); r.Outcome != spec.OutcomeDone || n.Load() != 1 {
		t.Fatalf("probe on an allowed element: got %s/%s (%s), dispatched %d times, want done once", r.Outcome, r.Reason, r.Message, n.Load())
	}

	if err := f.Control.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	checks := f.Page.Checks()
	r = f.Gate.Do(ctx, gate.NewProbe("e2", &n))
	if r.Outcome != spec.OutcomeDenied || r.Reason != spec.ReasonUserHasControl {
		t.Fatalf("probe while the User holds control: got %s/%s, want denied/user_has_control", r.Outcome, r.Reason)
	}
	if n.Load() != 1 || f.Page.Checks() != checks {
		t.Fatalf("while the User held control the probe dispatched (%d) or asked the page (%d checks, was %d)", n.Load()-1, f.Page.Checks(), checks)
	}
}

// auditLines decodes the fixture's audit log.
func auditLines(t *testing.T, f *gatetest.Fixture) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(f.Audit.Bytes()), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}
