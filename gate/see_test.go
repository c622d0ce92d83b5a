package gate

import (
	"testing"

	"github.com/poppy-browser/poppy-browser/spec"
)

func TestChangedPage(t *testing.T) {
	one, two := 1, 2
	at := PageState{URL: "https://airline.test/a", Epoch: 3, Tab: &one}
	done := func(p PageState) Result { return Result{Outcome: spec.OutcomeDone, Page: p} }
	moved := at
	moved.URL = "https://airline.test/b"
	newEpoch := at
	newEpoch.Epoch = 4
	otherTab := at
	otherTab.Tab = &two
	for _, c := range []struct {
		name string
		a    Action
		res  Result
		want bool
	}{
		{"navigate", Navigate{}, done(newEpoch), true},
		{"a click that stayed", Click{Ref: "e1"}, done(at), false},
		{"a click that navigated", Click{Ref: "e1"}, done(moved), true},
		{"a click that opened a tab", Click{Ref: "e1"}, Result{Outcome: spec.OutcomeDone, Page: at, TabsOpened: []TabInfo{{Index: 2}}}, true},
		{"a tab selected", Tabs{Action: TabSelect, Index: &two}, done(otherTab), true},
		{"the tab list", Tabs{Action: TabList}, done(otherTab), false},
		{"a snapshot", Snapshot{}, done(newEpoch), false},
		{"a refused navigate", Navigate{}, Result{Outcome: spec.OutcomeDenied, Page: newEpoch}, false},
		{"a dialog opened", Click{Ref: "e1"}, Result{Outcome: spec.OutcomeDone, Page: moved, Dialog: &DialogInfo{Type: "alert"}}, false},
	} {
		if got := changedPage(c.a, at, c.res); got != c.want {
			t.Errorf("%s: changedPage = %v, want %v", c.name, got, c.want)
		}
	}
}
