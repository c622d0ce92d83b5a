package gate_test

import (
	"math"
	"testing"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/gate/gatetest"
	"github.com/poppy-browser/poppy-browser/spec"
)

// Arguments a sloppy model (or a page's text) can send are refused with
// failed/bad_argument before anything reaches the page; none may panic.
func TestBadArguments(t *testing.T) {
	idx := func(i int) *int { return &i }
	refs := []string{"", "e", "x12", "e-1", "e0", "e01", "E1", " e1", "e1 ", "#submit", "e99999999999999999999999", "e1e1", "\x00"}
	var tests []struct {
		name   string
		action gate.Action
	}
	add := func(name string, a gate.Action) {
		tests = append(tests, struct {
			name   string
			action gate.Action
		}{name, a})
	}
	for _, ref := range refs {
		add("click "+ref, gate.Click{Ref: ref})
		add("hover "+ref, gate.Hover{Ref: ref})
		add("type "+ref, gate.Type{Ref: ref, Text: "x"})
		add("select "+ref, gate.Select{Ref: ref, Values: []string{"14D"}})
		if ref != "" { // the ref is optional: "" means none
			add("press_key "+ref, gate.PressKey{Key: "Tab", Ref: ref})
			add("scroll "+ref, gate.Scroll{Ref: ref, Direction: "down"})
			add("snapshot "+ref, gate.Snapshot{Ref: ref})
			add("screenshot "+ref, gate.Screenshot{Ref: ref})
		}
	}
	add("select no values", gate.Select{Ref: "e2"})
	add("empty key", gate.PressKey{})
	add("empty key on a ref", gate.PressKey{Ref: "e2"})
	add("negative scroll", gate.Scroll{Direction: "down", Amount: -5})
	add("NaN scroll", gate.Scroll{Direction: "down", Amount: math.NaN()})
	add("infinite scroll", gate.Scroll{Direction: "down", Amount: math.Inf(1)})
	add("unknown direction", gate.Scroll{Direction: "sideways"})
	add("negative wait", gate.Wait{Seconds: -1})
	add("NaN wait", gate.Wait{Seconds: math.NaN()})
	add("select tab without index", gate.Tabs{Action: "select"})
	add("close negative tab", gate.Tabs{Action: "close", Index: idx(-1)})
	add("unknown tab action", gate.Tabs{Action: "open"})
	add("no action", nil)

	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := gatetest.New()
			if r := f.Gate.Do(t.Context(), gate.Snapshot{}); r.Outcome != spec.OutcomeDone {
				t.Fatalf("snapshot: %+v", r)
			}
			got := f.Gate.Do(t.Context(), tc.action)
			if got.Outcome != spec.OutcomeFailed || got.Reason != spec.ReasonBadArgument || got.Message == "" {
				t.Errorf("got %s/%s (%q), want failed/bad_argument with a message", got.Outcome, got.Reason, got.Message)
			}
			if in := f.Page.Inputs(); len(in) != 0 {
				t.Errorf("the page got input for a bad argument: %q", in)
			}
		})
	}
}

// A ref is e<N>: anything else is no ref at all, never another element.
func TestRefStatus(t *testing.T) {
	f := gatetest.New()
	f.Gate.Do(t.Context(), gate.Snapshot{})
	for ref, want := range map[string]spec.Reason{
		"e2": "", "e42": spec.ReasonNoSuchRef, "": spec.ReasonBadArgument, "e": spec.ReasonBadArgument,
		"x12": spec.ReasonBadArgument, "e-1": spec.ReasonBadArgument, "e99999999999999999999999": spec.ReasonBadArgument,
	} {
		if got := f.Gate.RefStatus(ref); got != want {
			t.Errorf("RefStatus(%q) = %q, want %q", ref, got, want)
		}
	}
}
