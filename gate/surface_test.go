package gate_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/marks/markstest"
	"github.com/poppy-browser/poppy-browser/spec"
)

// readOnlyPage fakes only what a snapshot and a verdict need: the page
// (gate.Surface) and its marks (gate.Marks). It takes no input, has no
// tabs, navigation or picture.
type readOnlyPage struct{}

const checkInURL = "https://airline.test/check-in"

func (readOnlyPage) Document(context.Context) (string, error) { return "doc1", nil }
func (readOnlyPage) URL() string                              { return checkInURL }
func (readOnlyPage) Title(context.Context) string             { return "Check in" }
func (readOnlyPage) Frames() []gate.Frame                     { return []gate.Frame{{ID: "main", URL: checkInURL}} }
func (readOnlyPage) Status() int                              { return 200 }
func (readOnlyPage) Gone() bool                               { return false }
func (readOnlyPage) Scan(context.Context, gate.Frame, int) (marks.Scan, error) {
	return markstest.CheckInScan(), nil
}
func (readOnlyPage) Check(_ context.Context, f gate.Frame, a marks.Action) (marks.Verdict, error) {
	return markstest.CheckInVerdicts(f.ID, a), nil
}
func (readOnlyPage) Disarm(context.Context, gate.Frame) (marks.Disarmed, error) {
	return marks.Disarmed{}, nil
}

// TestAFakeOfTwoInterfaces: a test fakes only the interfaces it exercises.
// Over a page of marks alone, the snapshot reads and the verdict refuses
// a marked step as over a whole page; input the page cannot take fails
// with page_error, and a page without tabs reports none.
func TestAFakeOfTwoInterfaces(t *testing.T) {
	ctx := t.Context()
	g := gate.New(&gate.Options{Control: control.New(nil), Surface: func() gate.Surface { return readOnlyPage{} }})
	snap := g.Do(ctx, gate.Snapshot{})
	if snap.Outcome != spec.OutcomeDone || !strings.Contains(snap.Text, `"Passport number"`) || snap.Page.Tab != nil {
		t.Fatalf("snapshot: %s/%s %q, tab %v", snap.Outcome, snap.Reason, snap.Text, snap.Page.Tab)
	}
	ref := func(role, name string) string {
		m := regexp.MustCompile(role + ` "` + name + `" \[(e\d+)\]`).FindStringSubmatch(snap.Text)
		if m == nil {
			t.Fatalf("no %s %q in the snapshot:\n%s", role, name, snap.Text)
		}
		return m[1]
	}
	if r := g.Do(ctx, gate.Click{Ref: ref("button", "Check in")}); r.Reason != spec.ReasonUserStep {
		t.Errorf("click on the marked step: got %s/%s, want denied/user_step", r.Outcome, r.Reason)
	}
	if r := g.Do(ctx, gate.Click{Ref: ref("link", "Help")}); r.Outcome != spec.OutcomeFailed || r.Reason != spec.ReasonPageError {
		t.Errorf("click on a page that takes no input: got %s/%s (%s), want failed/page_error", r.Outcome, r.Reason, r.Message)
	}
	if r := g.Do(ctx, gate.Tabs{Action: gate.TabList}); r.Outcome != spec.OutcomeDone || len(r.Tabs) != 0 {
		t.Errorf("tab list of a page alone: got %s/%s %+v", r.Outcome, r.Reason, r.Tabs)
	}
}
