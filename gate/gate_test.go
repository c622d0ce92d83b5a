package gate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/gate/gatetest"
	"github.com/poppy-browser/poppy-browser/internal/golden"
	"github.com/poppy-browser/poppy-browser/spec"
)

// result drops the parts every case shares, for comparison.
type brief struct {
	Outcome spec.Outcome
	Reason  spec.Reason
	Mark    *gate.MarkRefs
	Epoch   uint64
	Ctl     spec.Controller
}

func briefOf(r gate.Result) brief {
	return brief{r.Outcome, r.Reason, r.Mark, r.Page.Epoch, r.Page.Controller}
}

func TestGate(t *testing.T) {
	agentCtl := spec.ControllerAgent
	tests := []struct {
		name   string
		before func(t *testing.T, f *gatetest.Fixture) // after the first snapshot
		action gate.Action
		want   brief
		inputs []string
	}{
		{name: "click allowed at frame offset plus point", action: gate.Click{Ref: "e6"},
			want: brief{Outcome: spec.OutcomeDone, Epoch: 1, Ctl: agentCtl}, inputs: []string{"click 110,220"}},
		{name: "click on submit denied with mark refs", action: gate.Click{Ref: "e4"},
			want: brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonUserStep, Epoch: 1, Ctl: agentCtl,
				Mark: &gate.MarkRefs{Kind: spec.Submission, Marked: "e1", Touches: "e4"}}},
		{name: "mark bearer outside the snapshot gets a new ref", action: gate.PressKey{Key: " ", Ref: "e5"},
			want: brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonUserStep, Epoch: 1, Ctl: agentCtl,
				Mark: &gate.MarkRefs{Kind: spec.Interaction, Marked: "e7", Touches: "e5"}}},
		{name: "obscured click fails", action: gate.Click{Ref: "e5"},
			want: brief{Outcome: spec.OutcomeFailed, Reason: spec.ReasonObscured, Epoch: 1, Ctl: agentCtl}},
		{name: "typing into the User's field denied", action: gate.Type{Ref: "e3", Text: "P1234567"},
			want: brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonUserStep, Epoch: 1, Ctl: agentCtl,
				Mark: &gate.MarkRefs{Kind: spec.Interaction, Marked: "e3", Touches: "e3"}}},
		{name: "select in a submission form done", action: gate.Select{Ref: "e2", Values: []string{"14D"}},
			want: brief{Outcome: spec.OutcomeDone, Epoch: 1, Ctl: agentCtl}, inputs: []string{`select main/3 ["14D"]`}},
		{name: "type with submit denied before typing", action: gate.Type{Ref: "e2", Text: "14D", Submit: true},
			want: brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonUserStep, Epoch: 1, Ctl: agentCtl,
				Mark: &gate.MarkRefs{Kind: spec.Submission, Marked: "e1", Touches: "e4"}}},
		{name: "type without submit done", action: gate.Type{Ref: "e2", Text: "14D"},
			want: brief{Outcome: spec.OutcomeDone, Epoch: 1, Ctl: agentCtl}, inputs: []string{"focus main/3", "insert text"}},
		{name: "enter on focus submitting a marked form denied", action: gate.PressKey{Key: "Enter"},
			want: brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonUserStep, Epoch: 1, Ctl: agentCtl,
				Mark: &gate.MarkRefs{Kind: spec.Submission, Marked: "e1", Touches: "e4"}}},
		{name: "tab done", action: gate.PressKey{Key: "Tab"},
			want: brief{Outcome: spec.OutcomeDone, Epoch: 1, Ctl: agentCtl}, inputs: []string{"press Tab"}},
		{name: "unknown ref", action: gate.Click{Ref: "e42"},
			want: brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonNoSuchRef, Epoch: 1, Ctl: agentCtl}},
		{name: "malformed ref", action: gate.Click{Ref: "#submit"},
			want: brief{Outcome: spec.OutcomeFailed, Reason: spec.ReasonBadArgument, Epoch: 1, Ctl: agentCtl}},
		{name: "new document makes refs stale", action: gate.Click{Ref: "e6"},
			before: func(t *testing.T, f *gatetest.Fixture) { f.Page.SetDocument("doc2") },
			want:   brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonStaleRef, Epoch: 2, Ctl: agentCtl}},
		{name: "hand back makes refs stale", action: gate.Click{Ref: "e6"},
			before: func(t *testing.T, f *gatetest.Fixture) {
				if err := f.Control.User().Take(t.Context()); err != nil {
					t.Fatal(err)
				}
				if err := f.Control.User().HandBack(t.Context()); err != nil {
					t.Fatal(err)
				}
			},
			want: brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonStaleRef, Epoch: 2, Ctl: agentCtl}},
		{name: "key without ref refused until a new snapshot after a hand back", action: gate.PressKey{Key: "Tab"},
			before: func(t *testing.T, f *gatetest.Fixture) {
				_ = f.Control.User().Take(t.Context())
				_ = f.Control.User().HandBack(t.Context())
			},
			want: brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonStaleRef, Epoch: 2, Ctl: agentCtl}},
		{name: "frame navigated makes its refs stale", action: gate.Click{Ref: "e6"},
			before: func(t *testing.T, f *gatetest.Fixture) {
				f.Page.SetFrames(gate.Frame{ID: "main", URL: "https://airline.test/other"})
			},
			want: brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonStaleRef, Epoch: 1, Ctl: agentCtl}},
		{name: "navigate starts a new epoch", action: gate.Navigate{URL: "https://airline.test/bookings"},
			want: brief{Outcome: spec.OutcomeDone, Epoch: 2, Ctl: agentCtl}, inputs: []string{"navigate https://airline.test/bookings"}},
		{name: "navigate refuses other schemes", action: gate.Navigate{URL: "javascript:alert(1)"},
			want: brief{Outcome: spec.OutcomeFailed, Reason: spec.ReasonBadURL, Epoch: 1, Ctl: agentCtl}},
		{name: "scroll an element", action: gate.Scroll{Ref: "e2", Direction: "up", Amount: 100},
			want: brief{Outcome: spec.OutcomeDone, Epoch: 1, Ctl: agentCtl}, inputs: []string{"scroll main/3 0,-100"}},
		{name: "scroll the page", action: gate.Scroll{Direction: "down"},
			want: brief{Outcome: spec.OutcomeDone, Epoch: 1, Ctl: agentCtl}, inputs: []string{"wheel 0,600"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := gatetest.New()
			if r := f.Gate.Do(t.Context(), gate.Snapshot{}); r.Outcome != spec.OutcomeDone {
				t.Fatalf("snapshot: %+v", r)
			}
			if tc.before != nil {
				tc.before(t, f)
			}
			got := f.Gate.Do(t.Context(), tc.action)
			if diff := cmp.Diff(tc.want, briefOf(got)); diff != "" {
				t.Errorf("result mismatch (-want +got):\n%s\nmessage: %s", diff, got.Message)
			}
			if got.Message == "" {
				t.Error("result has no message")
			}
			if diff := cmp.Diff(tc.inputs, f.Page.Inputs()); diff != "" {
				t.Errorf("input dispatched (-want +got):\n%s", diff)
			}
		})
	}
}

// While the User holds control every action is refused at once: no page
// read, no input.
func TestGateUserHasControl(t *testing.T) {
	f := gatetest.New()
	f.Gate.Do(t.Context(), gate.Snapshot{})
	checks := f.Page.Checks()
	if err := f.Control.User().Take(t.Context()); err != nil {
		t.Fatal(err)
	}
	actions := []gate.Action{gate.Snapshot{}, gate.Click{Ref: "e6"}, gate.Type{Ref: "e2", Text: "x"}, gate.Select{Ref: "e2", Values: []string{"14D"}},
		gate.PressKey{Key: "Tab"}, gate.Scroll{Direction: "down"}, gate.Navigate{URL: "https://airline.test/"}, gate.Back{}, gate.Wait{Seconds: 1}}
	for _, a := range actions {
		got := f.Gate.Do(t.Context(), a)
		want := brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonUserHasControl, Epoch: 1, Ctl: spec.ControllerUser}
		if diff := cmp.Diff(want, briefOf(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", a.Tool(), diff)
		}
	}
	if in := f.Page.Inputs(); len(in) != 0 || f.Page.Checks() != checks {
		t.Errorf("page touched while the User held control: inputs %q, %d checks", in, f.Page.Checks()-checks)
	}
}

// A snapshot after a hand back clears must_reobserve; refs stay the same
// element within an epoch and are never reused across epochs.
func TestGateReobserve(t *testing.T) {
	f := gatetest.New()
	first := f.Gate.Do(t.Context(), gate.Snapshot{})
	again := f.Gate.Do(t.Context(), gate.Snapshot{})
	if diff := cmp.Diff(first.Elements, again.Elements); diff != "" {
		t.Errorf("refs changed within an epoch (-first +again):\n%s", diff)
	}
	_ = f.Control.User().Take(t.Context())
	_ = f.Control.User().HandBack(t.Context())
	if !f.Control.Status().MustReobserve {
		t.Fatal("must_reobserve not set by hand back")
	}
	third := f.Gate.Do(t.Context(), gate.Snapshot{})
	if f.Control.Status().MustReobserve {
		t.Error("must_reobserve still set after a snapshot")
	}
	if third.Page.Epoch != 2 || third.Elements[0].Ref != "e7" {
		t.Errorf("after hand back: epoch %d, first ref %s; want epoch 2, e7 (numbers are never reused)", third.Page.Epoch, third.Elements[0].Ref)
	}
}

// Each decision is one audit line; typed text never appears.
func TestGateAudit(t *testing.T) {
	f := gatetest.New()
	ctx := t.Context()
	f.Gate.Do(ctx, gate.Snapshot{})
	f.Gate.Do(ctx, gate.Click{Ref: "e4"})
	f.Gate.Do(ctx, gate.Type{Ref: "e2", Text: "secret-typed-text", Submit: true})
	f.Gate.Do(ctx, gate.Type{Ref: "e2", Text: "secret-typed-text"})
	f.Gate.Do(ctx, gate.Select{Ref: "e2", Values: []string{"14D"}})
	f.Gate.Do(ctx, gate.Navigate{URL: "https://airline.test/bookings"})
	f.Gate.Do(ctx, gate.Click{Ref: "e2"})
	// A click that leads on is recorded on the page it acted on; a failed
	// navigation with the URL it tried (no query) and why.
	help := ""
	for _, e := range f.Gate.Do(ctx, gate.Snapshot{}).Elements {
		if e.Name == "Help" {
			help = e.Ref
		}
	}
	f.Page.ClickLeadsTo("https://airline.test/help")
	f.Gate.Do(ctx, gate.Click{Ref: help})
	f.Page.FailNavigations("net::ERR_NAME_NOT_RESOLVED")
	f.Gate.Do(ctx, gate.Navigate{URL: "https://missing.airline.test/find?name=secret-query"})
	_ = f.Control.User().Take(ctx)
	f.Gate.Do(ctx, gate.Click{Ref: "e2"})
	if bytes.Contains(f.Audit.Bytes(), []byte("secret-typed-text")) || bytes.Contains(f.Audit.Bytes(), []byte("secret-query")) {
		t.Error("audit log holds typed text or a query")
	}
	golden.Check(t, filepath.Join("testdata", "audit.golden"), f.Audit.Bytes())
}

// The result of a denial has the docs/reference.md shape.
func TestResultShape(t *testing.T) {
	f := gatetest.New()
	f.Gate.Do(t.Context(), gate.Snapshot{})
	res := f.Gate.Do(t.Context(), gate.Click{Ref: "e4"})
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "denied_user_step.json"), append(b, '\n'))
}

// A gate with no page fails cleanly.
func TestGateNoPage(t *testing.T) {
	g := gate.New(&gate.Options{Control: control.New(nil), Surface: func() gate.Surface { return nil }})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if got := g.Do(ctx, gate.Click{Ref: "e1"}); got.Outcome != spec.OutcomeFailed || got.Reason != spec.ReasonNoPage {
		t.Errorf("got %+v, want failed no_page", got)
	}
}
