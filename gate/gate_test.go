package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/internal/golden"
	"github.com/poppy-browser/poppy-browser/marks/markstest"
	"github.com/poppy-browser/poppy-browser/spec"
)

func boolp(b bool) *bool { return &b }

// checkInScan and checkInVerdicts are the demo check-in page as the
// scanner reports and judges it.
var (
	checkInScan     = markstest.CheckInScan
	checkInVerdicts = markstest.CheckInVerdicts
)

type fixture struct {
	page  *fakePage
	ctl   *control.Control
	gate  *Gate
	audit *bytes.Buffer
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	fp := newFakePage()
	fp.scans["main"] = checkInScan()
	fp.verdict = checkInVerdicts
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var buf bytes.Buffer
	audit := audit.New(&buf, func() time.Time { return clock }).WithRun("run-1")
	ctl := control.New(&control.Options{Now: func() time.Time { return clock }})
	g := New(&Options{Control: ctl, Audit: audit, CompanyHost: func(h string) bool { return h == "airline.test" },
		Surface: func() Surface { return fp }})
	return &fixture{page: fp, ctl: ctl, gate: g, audit: &buf}
}

// result drops the parts every case shares, for comparison.
type brief struct {
	Outcome spec.Outcome
	Reason  spec.Reason
	Mark    *MarkRefs
	Epoch   uint64
	Ctl     spec.Controller
}

func briefOf(r Result) brief {
	return brief{r.Outcome, r.Reason, r.Mark, r.Page.Epoch, r.Page.Controller}
}

func TestGate(t *testing.T) {
	agentCtl := spec.ControllerAgent
	tests := []struct {
		name   string
		before func(t *testing.T, f *fixture) // after the first snapshot
		action Action
		want   brief
		inputs []string
	}{
		{name: "click allowed at frame offset plus point", action: Click{Ref: "e6"},
			want: brief{Outcome: spec.OutcomeDone, Epoch: 1, Ctl: agentCtl}, inputs: []string{"click 110,220"}},
		{name: "click on submit denied with mark refs", action: Click{Ref: "e4"},
			want: brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonUserStep, Epoch: 1, Ctl: agentCtl,
				Mark: &MarkRefs{Kind: spec.Submission, Marked: "e1", Touches: "e4"}}},
		{name: "mark bearer outside the snapshot gets a new ref", action: PressKey{Key: " ", Ref: "e5"},
			want: brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonUserStep, Epoch: 1, Ctl: agentCtl,
				Mark: &MarkRefs{Kind: spec.Interaction, Marked: "e7", Touches: "e5"}}},
		{name: "obscured click fails", action: Click{Ref: "e5"},
			want: brief{Outcome: spec.OutcomeFailed, Reason: spec.ReasonObscured, Epoch: 1, Ctl: agentCtl}},
		{name: "typing into the User's field denied", action: Type{Ref: "e3", Text: "P1234567"},
			want: brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonUserStep, Epoch: 1, Ctl: agentCtl,
				Mark: &MarkRefs{Kind: spec.Interaction, Marked: "e3", Touches: "e3"}}},
		{name: "select in a submission form done", action: Select{Ref: "e2", Values: []string{"14D"}},
			want: brief{Outcome: spec.OutcomeDone, Epoch: 1, Ctl: agentCtl}, inputs: []string{`select main/3 ["14D"]`}},
		{name: "type with submit denied before typing", action: Type{Ref: "e2", Text: "14D", Submit: true},
			want: brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonUserStep, Epoch: 1, Ctl: agentCtl,
				Mark: &MarkRefs{Kind: spec.Submission, Marked: "e1", Touches: "e4"}}},
		{name: "type without submit done", action: Type{Ref: "e2", Text: "14D"},
			want: brief{Outcome: spec.OutcomeDone, Epoch: 1, Ctl: agentCtl}, inputs: []string{"focus main/3", "insert text"}},
		{name: "enter on focus submitting a marked form denied", action: PressKey{Key: "Enter"},
			want: brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonUserStep, Epoch: 1, Ctl: agentCtl,
				Mark: &MarkRefs{Kind: spec.Submission, Marked: "e1", Touches: "e4"}}},
		{name: "tab done", action: PressKey{Key: "Tab"},
			want: brief{Outcome: spec.OutcomeDone, Epoch: 1, Ctl: agentCtl}, inputs: []string{"press Tab"}},
		{name: "unknown ref", action: Click{Ref: "e42"},
			want: brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonNoSuchRef, Epoch: 1, Ctl: agentCtl}},
		{name: "malformed ref", action: Click{Ref: "#submit"},
			want: brief{Outcome: spec.OutcomeFailed, Reason: FailBadArgument, Epoch: 1, Ctl: agentCtl}},
		{name: "new document makes refs stale", action: Click{Ref: "e6"},
			before: func(t *testing.T, f *fixture) { f.page.mu.Lock(); f.page.doc = "doc2"; f.page.mu.Unlock() },
			want:   brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonStaleRef, Epoch: 2, Ctl: agentCtl}},
		{name: "hand back makes refs stale", action: Click{Ref: "e6"},
			before: func(t *testing.T, f *fixture) {
				if err := f.ctl.User().Take(t.Context()); err != nil {
					t.Fatal(err)
				}
				if err := f.ctl.User().HandBack(t.Context()); err != nil {
					t.Fatal(err)
				}
			},
			want: brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonStaleRef, Epoch: 2, Ctl: agentCtl}},
		{name: "key without ref refused until a new snapshot after a hand back", action: PressKey{Key: "Tab"},
			before: func(t *testing.T, f *fixture) {
				_ = f.ctl.User().Take(t.Context())
				_ = f.ctl.User().HandBack(t.Context())
			},
			want: brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonStaleRef, Epoch: 2, Ctl: agentCtl}},
		{name: "frame navigated makes its refs stale", action: Click{Ref: "e6"},
			before: func(t *testing.T, f *fixture) {
				f.page.mu.Lock()
				f.page.framesv = []Frame{{ID: "main", URL: "https://airline.test/other"}}
				f.page.mu.Unlock()
			},
			want: brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonStaleRef, Epoch: 1, Ctl: agentCtl}},
		{name: "navigate starts a new epoch", action: Navigate{URL: "https://airline.test/bookings"},
			want: brief{Outcome: spec.OutcomeDone, Epoch: 2, Ctl: agentCtl}, inputs: []string{"navigate https://airline.test/bookings"}},
		{name: "navigate refuses other schemes", action: Navigate{URL: "javascript:alert(1)"},
			want: brief{Outcome: spec.OutcomeFailed, Reason: FailBadURL, Epoch: 1, Ctl: agentCtl}},
		{name: "scroll an element", action: Scroll{Ref: "e2", Direction: "up", Amount: 100},
			want: brief{Outcome: spec.OutcomeDone, Epoch: 1, Ctl: agentCtl}, inputs: []string{"scroll main/3 0,-100"}},
		{name: "scroll the page", action: Scroll{Direction: "down"},
			want: brief{Outcome: spec.OutcomeDone, Epoch: 1, Ctl: agentCtl}, inputs: []string{"wheel 0,600"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			if r := f.gate.Do(t.Context(), Snapshot{}); r.Outcome != spec.OutcomeDone {
				t.Fatalf("snapshot: %+v", r)
			}
			if tc.before != nil {
				tc.before(t, f)
			}
			got := f.gate.Do(t.Context(), tc.action)
			if diff := cmp.Diff(tc.want, briefOf(got)); diff != "" {
				t.Errorf("result mismatch (-want +got):\n%s\nmessage: %s", diff, got.Message)
			}
			if got.Message == "" {
				t.Error("result has no message")
			}
			if diff := cmp.Diff(tc.inputs, f.page.got()); diff != "" {
				t.Errorf("input dispatched (-want +got):\n%s", diff)
			}
		})
	}
}

// While the User holds control every action is refused at once: no page
// read, no input.
func TestGateUserHasControl(t *testing.T) {
	f := newFixture(t)
	f.gate.Do(t.Context(), Snapshot{})
	checks := f.page.checks
	if err := f.ctl.User().Take(t.Context()); err != nil {
		t.Fatal(err)
	}
	actions := []Action{Snapshot{}, Click{Ref: "e6"}, Type{Ref: "e2", Text: "x"}, Select{Ref: "e2", Values: []string{"14D"}},
		PressKey{Key: "Tab"}, Scroll{Direction: "down"}, Navigate{URL: "https://airline.test/"}, Back{}, Wait{Seconds: 1}}
	for _, a := range actions {
		got := f.gate.Do(t.Context(), a)
		want := brief{Outcome: spec.OutcomeDenied, Reason: spec.ReasonUserHasControl, Epoch: 1, Ctl: spec.ControllerUser}
		if diff := cmp.Diff(want, briefOf(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", a.Tool(), diff)
		}
	}
	if in := f.page.got(); len(in) != 0 || f.page.checks != checks {
		t.Errorf("page touched while the User held control: inputs %q, %d checks", in, f.page.checks-checks)
	}
}

// A snapshot after a hand back clears must_reobserve; refs stay the same
// element within an epoch and are never reused across epochs.
func TestGateReobserve(t *testing.T) {
	f := newFixture(t)
	first := f.gate.Do(t.Context(), Snapshot{})
	again := f.gate.Do(t.Context(), Snapshot{})
	if diff := cmp.Diff(first.Elements, again.Elements); diff != "" {
		t.Errorf("refs changed within an epoch (-first +again):\n%s", diff)
	}
	_ = f.ctl.User().Take(t.Context())
	_ = f.ctl.User().HandBack(t.Context())
	if !f.ctl.Status().MustReobserve {
		t.Fatal("must_reobserve not set by hand back")
	}
	third := f.gate.Do(t.Context(), Snapshot{})
	if f.ctl.Status().MustReobserve {
		t.Error("must_reobserve still set after a snapshot")
	}
	if third.Page.Epoch != 2 || third.Elements[0].Ref != "e7" {
		t.Errorf("after hand back: epoch %d, first ref %s; want epoch 2, e7 (numbers are never reused)", third.Page.Epoch, third.Elements[0].Ref)
	}
}

// Each decision is one audit line; typed text never appears.
func TestGateAudit(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	f.gate.Do(ctx, Snapshot{})
	f.gate.Do(ctx, Click{Ref: "e4"})
	f.gate.Do(ctx, Type{Ref: "e2", Text: "secret-typed-text", Submit: true})
	f.gate.Do(ctx, Type{Ref: "e2", Text: "secret-typed-text"})
	f.gate.Do(ctx, Select{Ref: "e2", Values: []string{"14D"}})
	f.gate.Do(ctx, Navigate{URL: "https://airline.test/bookings"})
	f.gate.Do(ctx, Click{Ref: "e2"})
	// A click that leads on is recorded on the page it acted on; a failed
	// navigation with the URL it tried (no query) and why.
	help := ""
	for _, e := range f.gate.Do(ctx, Snapshot{}).Elements {
		if e.Name == "Help" {
			help = e.Ref
		}
	}
	f.page.clickTo = "https://airline.test/help"
	f.gate.Do(ctx, Click{Ref: help})
	f.page.navFail = "net::ERR_NAME_NOT_RESOLVED"
	f.gate.Do(ctx, Navigate{URL: "https://missing.airline.test/find?name=secret-query"})
	_ = f.ctl.User().Take(ctx)
	f.gate.Do(ctx, Click{Ref: "e2"})
	if bytes.Contains(f.audit.Bytes(), []byte("secret-typed-text")) || bytes.Contains(f.audit.Bytes(), []byte("secret-query")) {
		t.Error("audit log holds typed text or a query")
	}
	golden.Check(t, filepath.Join("testdata", "audit.golden"), f.audit.Bytes())
}

// The result of a denial has the CONTRACT.md shape.
func TestResultShape(t *testing.T) {
	f := newFixture(t)
	f.gate.Do(t.Context(), Snapshot{})
	res := f.gate.Do(t.Context(), Click{Ref: "e4"})
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "denied_user_step.json"), append(b, '\n'))
}

// A gate with no page fails cleanly.
func TestGateNoPage(t *testing.T) {
	g := New(&Options{Control: control.New(nil), Surface: func() Surface { return nil }})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if got := g.Do(ctx, Click{Ref: "e1"}); got.Outcome != spec.OutcomeFailed || got.Reason != FailNoPage {
		t.Errorf("got %+v, want failed no_page", got)
	}
}
