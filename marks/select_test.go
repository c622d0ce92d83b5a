package marks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poppy-browser/poppy-browser/marks"
)

// selectByKeys selects value in the select id as the gate does: the keys
// marks.SelectKeys works out, pressed as browser input on the focused
// select. It returns what is selected afterwards.
func selectByKeys(ctx context.Context, t *testing.T, tp *testPage, id int, values ...string) []string {
	t.Helper()
	sel, err := marks.SelectKeys(ctx, tp.frame, id, values)
	if err != nil {
		t.Fatalf("SelectKeys(%q): %v", values, err)
	}
	if err := marks.Focus(ctx, tp.frame, id); err != nil {
		t.Fatal(err)
	}
	for _, k := range sel.Keys {
		if err := tp.p.Press(ctx, k); err != nil {
			t.Fatalf("pressing %q: %v", k, err)
		}
	}
	got, err := marks.SelectedValues(ctx, tp.frame, id)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(got, sel.Values) {
		t.Errorf("after the keys %q the select shows %q, SelectKeys said %q", sel.Keys, got, sel.Values)
	}
	return got
}

// TestSelectByKeys (issue 18): the scanner dispatches nothing for a
// select; the keys it works out select the options a person would, past
// disabled ones, and the page sees only trusted keydown, input and change
// events, as from a person at the keyboard.
func TestSelectByKeys(t *testing.T) {
	tp, ctx := open(t, "/select.html")
	meal, err := marks.IDOf(ctx, tp.frame, "#meal")
	if err != nil {
		t.Fatal(err)
	}
	extras, err := marks.IDOf(ctx, tp.frame, "#extras")
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		id     int
		values []string
		want   []string
	}{
		{meal, []string{"Fish"}, []string{"fish"}},                    // from a disabled placeholder, past a disabled option
		{meal, []string{"std"}, []string{"std"}},                      // back up
		{meal, []string{"Kids"}, []string{"kids"}},                    // to the end
		{meal, []string{"Kids"}, []string{"kids"}},                    // already selected: no key
		{extras, []string{"Wi-Fi", "Meal"}, []string{"wifi", "meal"}}, // Seat is deselected, Lounge is disabled
		{extras, []string{"bag"}, []string{"bag"}},
	} {
		if got := selectByKeys(ctx, t, tp, step.id, step.values...); !cmp.Equal(got, step.want) {
			t.Errorf("selecting %q left %q selected, want %q", step.values, got, step.want)
		}
	}
	var log string
	if err := tp.frame.Call(ctx, "", `function() { return document.getElementById("log").textContent; }`, &log); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log, "synthetic") || !strings.Contains(log, "keydown:meal input:meal change:meal") || !strings.Contains(log, "change:extras") {
		t.Errorf("the page saw %q; want only trusted keydown, input and change events", log)
	}
	if _, err := marks.SelectKeys(ctx, tp.frame, meal, []string{"veg"}); err == nil {
		t.Error("SelectKeys of a disabled option: no error")
	}
	if _, err := marks.SelectKeys(ctx, tp.frame, meal, []string{"caviar"}); err == nil {
		t.Error("SelectKeys of no option: no error")
	}
}
