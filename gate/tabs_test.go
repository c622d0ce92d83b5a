package gate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/gate/gatetest"
	"github.com/poppy-browser/poppy-browser/spec"
)

// Tabs, dialogs and a gone browser go through the gate's interfaces, so a
// fake page walks every one of those paths (the real ones are in
// tabs_chromium_test.go).
func TestTabsDialogsAndGoneOnAFake(t *testing.T) {
	idx := func(i int) *int { return &i }
	type step struct {
		action gate.Action
		want   string // outcome/reason
	}
	tests := []struct {
		name   string
		before func(p *gatetest.Page)
		steps  []step
		inputs []string
		check  func(t *testing.T, last gate.Result)
	}{
		{name: "list, open, select, close",
			steps: []step{
				{gate.Tabs{Action: "list"}, "done/"},
				{gate.Tabs{Action: "new", URL: "https://airline.test/help"}, "done/"},
				{gate.Tabs{Action: "select", Index: idx(7)}, "failed/no_such_tab"},
				{gate.Tabs{Action: "select", Index: idx(1)}, "done/"},
				{gate.Tabs{Action: "close", Index: idx(1)}, "done/"},
			},
			inputs: []string{"new tab https://airline.test/help", "select tab 7", "select tab 1", "close tab 1"},
			check: func(t *testing.T, last gate.Result) {
				if len(last.Tabs) != 1 || last.Page.Tab == nil || *last.Page.Tab != 0 {
					t.Errorf("after closing the new tab: tabs %+v, page tab %v; want one tab, this page's at 0", last.Tabs, last.Page.Tab)
				}
			}},
		{name: "a tab an action opens is listed in tabs_opened",
			steps:  []step{{gate.Tabs{Action: "new"}, "done/"}},
			inputs: []string{"new tab "},
			check: func(t *testing.T, last gate.Result) {
				if diff := cmp.Diff([]gate.TabInfo{{Index: 1, Active: true}}, last.TabsOpened); diff != "" {
					t.Errorf("tabs_opened (-want +got):\n%s", diff)
				}
			}},
		{name: "a dialog holds the tab until it is answered",
			before: func(p *gatetest.Page) { p.OpenDialog("confirm", "Cancel the booking?") },
			steps: []step{
				{gate.Click{Ref: "e6"}, "failed/dialog_open"},
				{gate.Tabs{Action: "list"}, "done/"},
				{gate.HandleDialog{Accept: true}, "done/"},
				{gate.HandleDialog{Accept: true}, "failed/no_dialog"},
				{gate.Click{Ref: "e6"}, "done/"},
			},
			inputs: []string{"answer dialog true", "answer dialog true", "click 110,220"}},
		{name: "a result says which dialog is open",
			before: func(p *gatetest.Page) { p.OpenDialog("alert", "Your session ends soon") },
			steps:  []step{{gate.Tabs{Action: "list"}, "done/"}},
			check: func(t *testing.T, last gate.Result) {
				if last.Dialog == nil || last.Dialog.Type != "alert" {
					t.Errorf("dialog %+v, want the alert", last.Dialog)
				}
			}},
		{name: "a gone browser fails every action",
			before: func(p *gatetest.Page) { p.Close() },
			steps: []step{
				{gate.Click{Ref: "e6"}, "failed/browser_gone"},
				{gate.Tabs{Action: "list"}, "failed/browser_gone"},
				{gate.Snapshot{}, "failed/browser_gone"},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := gatetest.New()
			if r := f.Gate.Do(t.Context(), gate.Snapshot{}); r.Outcome != spec.OutcomeDone {
				t.Fatalf("snapshot: %+v", r)
			}
			if tc.before != nil {
				tc.before(f.Page)
			}
			var last gate.Result
			for _, s := range tc.steps {
				last = f.Gate.Do(t.Context(), s.action)
				if got := string(last.Outcome) + "/" + string(last.Reason); got != s.want {
					t.Fatalf("%s %+v: got %s (%s), want %s", s.action.Tool(), s.action, got, last.Message, s.want)
				}
			}
			if diff := cmp.Diff(tc.inputs, f.Page.Inputs()); diff != "" {
				t.Errorf("what the page got (-want +got):\n%s", diff)
			}
			if tc.check != nil {
				tc.check(t, last)
			}
		})
	}
}

// While the User holds control a tab change is refused like any action.
func TestTabsRefusedWhileTheUserHoldsControl(t *testing.T) {
	f := gatetest.New()
	if err := f.Control.User().Take(t.Context()); err != nil {
		t.Fatal(err)
	}
	i := 0
	for _, a := range []gate.Action{gate.Tabs{Action: "select", Index: &i}, gate.Tabs{Action: "new"}, gate.HandleDialog{}} {
		if r := f.Gate.Do(t.Context(), a); r.Reason != spec.ReasonUserHasControl {
			t.Errorf("%+v: got %s/%s, want denied/user_has_control", a, r.Outcome, r.Reason)
		}
	}
	if in := f.Page.Inputs(); len(in) != 0 {
		t.Errorf("the page got %q while the User held control", in)
	}
}
