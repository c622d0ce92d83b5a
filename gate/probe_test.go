package gate_test

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/gate/gatetest"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestProberPassesTheGate: check's probes get the verdicts an agent's
// action gets (a mark, a covered click point, the User's turn), their
// input only when allowed, under the lease, each on an audit line by
// "check"; a probe of the User's input passes marks, during the User's
// turn too, but not an element gone.
func TestProberPassesTheGate(t *testing.T) {
	ctx := t.Context()
	page := gatetest.NewPage()
	var buf bytes.Buffer
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ctl := control.New(&control.Options{Now: func() time.Time { return clock }})
	p := gate.NewProber(&gate.Options{Control: ctl, Audit: audit.New(&buf, func() time.Time { return clock }),
		Surface: func() gate.Surface { return page }})
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	probe := func(id int, a gate.Action, asUser bool) gate.Result {
		return p.Do(ctx, nil, gate.Probe{Frame: "main", ID: id, Action: a, AsUser: asUser})
	}
	for _, tc := range []struct {
		name   string
		id     int
		action gate.Action
		asUser bool
		want   spec.Reason // "" for done
		input  string      // what the page got, "" for nothing
	}{
		{name: "the submit button of a marked form", id: 5, action: gate.Click{}, want: spec.ReasonUserStep},
		{name: "a field the User's", id: 4, action: gate.Type{Text: "X123"}, want: spec.ReasonUserStep},
		{name: "a covered checkbox", id: 6, action: gate.Click{}, want: spec.ReasonObscured},
		{name: "Enter in the seat submits", id: 3, action: gate.PressKey{Key: "Enter"}, want: spec.ReasonUserStep},
		{name: "the help link", id: 7, action: gate.Click{}, input: "click 110,220"},
		{name: "the User's submit", id: 5, action: gate.Click{}, asUser: true, input: "click 110,220"},
		{name: "a frame gone", id: 7, action: gate.Click{}, want: spec.ReasonStaleRef},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frame := "main"
			if tc.want == spec.ReasonStaleRef {
				frame = "gone"
			}
			before := len(page.Inputs())
			res := p.Do(ctx, nil, gate.Probe{Frame: frame, ID: tc.id, Action: tc.action, AsUser: tc.asUser})
			if res.Reason != tc.want || (tc.want == "") != (res.Outcome == spec.OutcomeDone) {
				t.Fatalf("got %s/%s (%s), want %q", res.Outcome, res.Reason, res.Message, tc.want)
			}
			got := page.Inputs()[before:]
			if tc.input == "" && len(got) > 0 || tc.input != "" && !slices.Contains(got, tc.input) {
				t.Errorf("the page got %q, want %q", got, tc.input)
			}
		})
	}
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	if len(lines) < 7 {
		t.Fatalf("%d audit lines, want one per probe:\n%s", len(lines), buf.Bytes())
	}
	for _, l := range lines {
		if !bytes.Contains(l, []byte(`"by":"check"`)) {
			t.Errorf("audit line without by check: %s", l)
		}
	}

	// The User's turn: an agent's probe is refused without asking the
	// page; the User's input is given, without the agent's lease.
	err := p.AsUser(ctx, func() error {
		if ctl.Holder() != spec.ControllerUser {
			t.Errorf("AsUser: the holder is %s", ctl.Holder())
		}
		checks := page.Checks()
		if res := probe(7, gate.Click{}, false); res.Reason != spec.ReasonUserHasControl || page.Checks() != checks {
			t.Errorf("an agent's probe in the User's turn: got %s/%s, %d checks", res.Outcome, res.Reason, page.Checks()-checks)
		}
		if res := probe(3, gate.Select{Values: []string{"14D"}}, true); res.Outcome != spec.OutcomeDone {
			t.Errorf("the User's select in their turn: got %s/%s (%s)", res.Outcome, res.Reason, res.Message)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if ctl.Holder() != spec.ControllerAgent {
		t.Errorf("after AsUser the holder is %s, want agent", ctl.Holder())
	}
}
