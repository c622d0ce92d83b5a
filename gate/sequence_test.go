package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// probe is a throwaway action, defined here and nowhere else: it names a
// ref, says it would click it, and counts its dispatches. Gate.Do must run
// the whole sequence for it as for any built-in action.
type probe struct {
	ref        string
	dispatched *atomic.Int32
}

func (probe) Tool() string { return "browser_probe" }

func (p probe) plan() plan {
	return plan{
		ref:   p.ref,
		touch: &marks.Action{Kind: marks.ActionClick},
		lease: inputLease,
		dispatch: func(context.Context, *step) error {
			p.dispatched.Add(1)
			return nil
		},
		done: func(ctx context.Context, st *step) Result { return st.done(ctx, "Probed "+st.target.ref+".") },
	}
}

// TestSequenceRefusesANewAction: an action the gate has never seen is
// refused on a marked step and while the User holds control, and its
// dispatch never runs for it; on an allowed element it runs once.
func TestSequenceRefusesANewAction(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	if r := f.gate.Do(ctx, Snapshot{}); r.Outcome != spec.OutcomeDone {
		t.Fatalf("snapshot: %+v", r)
	}
	var n atomic.Int32

	// e4 is the Check in button, which submits the marked form.
	r := f.gate.Do(ctx, probe{ref: "e4", dispatched: &n})
	if r.Outcome != spec.OutcomeDenied || r.Reason != spec.ReasonUserStep || r.Mark == nil || r.Mark.Touches != "e4" {
		t.Fatalf("probe on the marked step: got %s/%s %+v, want denied/user_step touching e4", r.Outcome, r.Reason, r.Mark)
	}
	if n.Load() != 0 || len(f.page.got()) != 0 {
		t.Fatalf("the refused probe dispatched %d times; the page got %q", n.Load(), f.page.got())
	}
	if !slices.ContainsFunc(auditLines(t, f), func(l map[string]any) bool {
		return l["tool"] == "browser_probe" && l["reason"] == "user_step"
	}) {
		t.Errorf("the refusal is not in the audit log:\n%s", f.audit)
	}

	// e2 is the seat: allowed, so the probe runs, once.
	if r := f.gate.Do(ctx, probe{ref: "e2", dispatched: &n}); r.Outcome != spec.OutcomeDone || n.Load() != 1 {
		t.Fatalf("probe on an allowed element: got %s/%s (%s), dispatched %d times, want done once", r.Outcome, r.Reason, r.Message, n.Load())
	}

	if err := f.ctl.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	checks := f.page.checks
	r = f.gate.Do(ctx, probe{ref: "e2", dispatched: &n})
	if r.Outcome != spec.OutcomeDenied || r.Reason != spec.ReasonUserHasControl {
		t.Fatalf("probe while the User holds control: got %s/%s, want denied/user_has_control", r.Outcome, r.Reason)
	}
	if n.Load() != 1 || f.page.checks != checks {
		t.Fatalf("while the User held control the probe dispatched (%d) or asked the page (%d checks, was %d)", n.Load()-1, f.page.checks, checks)
	}
}

// auditLines decodes the fixture's audit log.
func auditLines(t *testing.T, f *fixture) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(f.audit.Bytes()), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}
