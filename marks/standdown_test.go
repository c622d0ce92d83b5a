package marks_test

import (
	"testing"

	"github.com/poppy-browser/poppy-browser/marks"
)

// TestGuardStandsDownForTheUser: a take stands the armed guard down
// (marks.StandDown): what reaches the User's field from then on is not
// stopped or put back, what the guard caught before waits for the run's
// disarm, a tool's change made before is put back at once, and an agent's
// check of the take's epoch or an older one arms nothing while a later
// one does. A check given for the User (a probe's tool) still arms.
func TestGuardStandsDownForTheUser(t *testing.T) {
	tp, ctx := open(t, "/standdown.html")
	s := tp.scan(ctx, t)
	button := tp.id(ctx, t, s, "css:#plain")
	arm := func(kind marks.ActionKind, agent bool, epoch uint64) {
		t.Helper()
		a := marks.Action{Kind: kind, Arm: true, Agent: agent, Epoch: epoch}
		if kind == marks.ActionClick {
			a.ID = button
		}
		v, err := marks.Check(ctx, tp.frame, a)
		if err != nil || len(v.Marks) > 0 {
			t.Fatalf("check %+v: %+v, %v; want an allowed action", a, v, err)
		}
	}
	reaches := func() bool {
		t.Helper()
		var ok bool
		if err := tp.frame.Call(ctx, "", "function() { return poke() }", &ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	standDown := func(epoch uint64) {
		t.Helper()
		if err := marks.StandDown(ctx, tp.frame, epoch); err != nil {
			t.Fatal(err)
		}
	}
	caught := func() string {
		t.Helper()
		d, err := marks.Disarm(ctx, tp.frame)
		if err != nil {
			t.Fatal(err)
		}
		if d.Caught == nil {
			return ""
		}
		return d.Caught.Event
	}
	// value sets the field from the page's script (not with set "?"), and
	// reads it.
	value := func(set string) string {
		t.Helper()
		var v string
		if err := tp.frame.Call(ctx, "", `function(set) { const f = document.getElementById("phone"); if (set !== "?") f.value = set; return f.value }`, &v, set); err != nil {
			t.Fatal(err)
		}
		return v
	}

	arm(marks.ActionClick, true, 3)
	if reaches() {
		t.Error("the armed guard let a click on the covered field through")
	}
	if got := caught(); got != "click" {
		t.Errorf("disarm caught %q, want click", got)
	}

	arm(marks.ActionClick, true, 3)
	standDown(3)
	if !reaches() {
		t.Error("after the stand-down the guard stopped a click on the covered field")
	}
	if got := caught(); got != "" {
		t.Errorf("after the stand-down disarm caught %q, want nothing", got)
	}

	// A check that raced the take (its epoch) arms nothing; the agent's
	// next turn (a later epoch) is guarded again.
	arm(marks.ActionClick, true, 3)
	if !reaches() {
		t.Error("a check of the take's epoch armed the guard")
	}
	caught()
	arm(marks.ActionClick, true, 4)
	if reaches() {
		t.Error("a check of the next epoch did not arm the guard")
	}
	if got := caught(); got != "click" {
		t.Errorf("disarm caught %q, want click", got)
	}

	// What the guard caught before the take is the run's to report.
	arm(marks.ActionClick, true, 5)
	reaches()
	standDown(5)
	if !reaches() {
		t.Error("after the stand-down the guard stopped a click on the covered field")
	}
	if got := caught(); got != "click" {
		t.Errorf("disarm after the stand-down caught %q, want the click from before it", got)
	}

	// A tool's silent change before the take is put back at the take; the
	// User's after it stays, and the run's disarm reports the tool's.
	arm(marks.ActionTool, true, 6)
	value("from the tool")
	standDown(6)
	if got := value("?"); got != "" {
		t.Errorf("after the stand-down the field reads %q, want the tool's change put back", got)
	}
	value("+351 912 345 678")
	if got := caught(); got != "value change" {
		t.Errorf("disarm caught %q, want the tool's value change", got)
	}
	if got := value("?"); got != "+351 912 345 678" {
		t.Errorf("after the disarm the field reads %q, want the User's value", got)
	}

	// A check given for the User (a probe's tool in the User's turn) arms.
	arm(marks.ActionTool, false, 6)
	value("from the tool")
	if got := caught(); got != "value change" {
		t.Errorf("a tool checked for the User: disarm caught %q, want value change", got)
	}
	if got := value("?"); got != "+351 912 345 678" {
		t.Errorf("the tool's change was not put back: %q", got)
	}
}
