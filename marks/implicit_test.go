package marks_test

import (
	"testing"

	"github.com/poppy-browser/poppy-browser/marks"
)

// TestImplicitRule is the table of HTML's implicit submission (HTML
// 4.10.21.2) as the scanner decides it: what Enter in a field of a form
// does, given the form's submit buttons and fields in tree order. It
// returns the index of the button activated, -1 for the form itself, -2
// for nothing.
func TestImplicitRule(t *testing.T) {
	type c = map[string]bool
	var (
		submit   = c{"submit": true}
		disabled = c{"submit": true, "disabled": true}
		field    = c{"blocks": true}
		checkbox = c{}
	)
	const form, nothing = -1, -2
	cases := []struct {
		name     string
		controls []c
		trigger  bool // Enter in a field that blocks implicit submission (a text field)
		want     int
	}{
		{"the default button is the first submit button", []c{field, submit, submit}, true, 1},
		{"a disabled default button means nothing", []c{field, disabled, submit}, true, nothing},
		{"a disabled button after the default does not matter", []c{field, submit, disabled}, true, 1},
		{"no button, one blocking field: the form", []c{field}, true, form},
		{"no button, one blocking field and a checkbox: the form", []c{field, checkbox}, true, form},
		{"no button, two blocking fields: nothing", []c{field, field}, true, nothing},
		{"no button, no blocking field (Enter in a checkbox): the form", []c{checkbox}, false, form},
		{"only disabled buttons: nothing", []c{field, field, disabled}, true, nothing},
		{"a checkbox: Chromium skips a disabled default to an enabled one", []c{checkbox, disabled, submit}, false, 2},
		{"a checkbox, only disabled buttons: nothing", []c{checkbox, disabled}, false, nothing},
	}
	tp, ctx := open(t, "/rules.html")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got int
			if err := tp.frame.Call(ctx, marks.World, marks.CallImplicitRule, &got, tc.controls, tc.trigger); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("implicitRule = %d, want %d", got, tc.want)
			}
		})
	}
}
