package marks_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// wantMark names elements by "role name" (from the scan) or "css:selector".
type wantMark struct {
	kind             spec.MarkKind
	marked, touching string
}

const (
	interaction = spec.Interaction
	submission  = spec.Submission
)

type checkCase struct {
	name   string
	page   string
	setup  string // page-world script run after the scan
	kind   marks.ActionKind
	target string // "" = no id (the focused element)
	key    string
	want   []wantMark
	stale  bool
	hidden bool // obscured
}

// checkInCases are the demo airline's check-in page (spec section 7).
var checkInCases = []checkCase{
	{name: "select a seat in a submission form is allowed", kind: "select", target: "combobox Seat"},
	{name: "click the seat select is allowed", kind: "click", target: "combobox Seat"},
	{name: "Check in submits a submission form", kind: "click", target: "button Check in",
		want: []wantMark{{submission, "css:#check-in", "button Check in"}}},
	{name: "Upgrade seat outside the form submits it by form=", kind: "click", target: "button Upgrade seat",
		want: []wantMark{{submission, "css:#check-in", "button Upgrade seat"}}},
	{name: "Enter in the seat select submits implicitly", kind: "key", target: "combobox Seat", key: "Enter",
		want: []wantMark{{submission, "css:#check-in", "button Check in"}}},
	{name: "type in the passport field: interaction, and both marks add up", kind: "type", target: "textbox Passport number",
		want: []wantMark{{interaction, "textbox Passport number", "textbox Passport number"}, {submission, "css:#check-in", "textbox Passport number"}}},
	{name: "type and submit in the passport field", kind: "type", target: "textbox Passport number", key: "Enter",
		want: []wantMark{{interaction, "textbox Passport number", "textbox Passport number"}, {submission, "css:#check-in", "button Check in"}}},
	{name: "click the passport field", kind: "click", target: "textbox Passport number",
		want: []wantMark{{interaction, "textbox Passport number", "textbox Passport number"}, {submission, "css:#check-in", "textbox Passport number"}}},
	{name: "a letter key in the passport field", kind: "key", target: "textbox Passport number", key: "a",
		want: []wantMark{{interaction, "textbox Passport number", "textbox Passport number"}, {submission, "css:#check-in", "textbox Passport number"}}},
	{name: "Tab out of the passport field is allowed", kind: "key", target: "textbox Passport number", key: "Tab"},
	{name: "Shift+Tab is allowed", kind: "key", target: "textbox Passport number", key: "Shift+Tab"},
	{name: "Enter on the focused passport field without a ref", kind: "key", key: "Enter",
		setup: `document.querySelector("[name=passport_number]").focus();`,
		want:  []wantMark{{interaction, "textbox Passport number", "textbox Passport number"}, {submission, "css:#check-in", "button Check in"}}},
	{name: "Enter on the page body is allowed", kind: "key", key: "Enter"},
	{name: "scroll to the passport field is allowed", kind: "scroll", target: "textbox Passport number"},
	{name: "focus the passport field is allowed", kind: "focus", target: "textbox Passport number"},
	{name: "click the heading is allowed", kind: "click", target: "css:h1"},
	{name: "Space on Check in submits", kind: "key", target: "button Check in", key: " ",
		want: []wantMark{{submission, "css:#check-in", "button Check in"}}},
	{name: "a mark removed after the scan no longer refuses", kind: "click", target: "button Check in",
		setup: `document.getElementById("check-in").removeAttribute("data-poppy-user-step");`},
}

var ruleCases = []checkCase{
	{name: "type in a submission form's field is allowed", kind: "type", target: "textbox Full name"},
	{name: "Enter in a field of a form with a submit button", kind: "type", target: "textbox Full name", key: "Enter",
		want: []wantMark{{submission, "css:#newsletter", "button Subscribe now"}}},
	{name: "Enter in an email field", kind: "key", target: "textbox Email", key: "Enter",
		want: []wantMark{{submission, "css:#newsletter", "button Subscribe now"}}},
	{name: "Enter in the only field of a form without a button", kind: "key", target: "textbox Search", key: "Enter",
		want: []wantMark{{submission, "css:#search", "css:#search"}}},
	{name: "click a span inside a submit button without type", kind: "click", target: "css:#pay-span",
		want: []wantMark{{submission, "css:#newsletter", "button Subscribe now"}}},
	{name: "click a type=button in a submission form is allowed", kind: "click", target: "button Preview"},
	{name: "reset a submission form without interaction fields is allowed", kind: "click", target: "button Clear"},
	{name: "check a box in a submission form is allowed", kind: "click", target: "checkbox Weekly"},
	{name: "reset a form with an interaction field", kind: "click", target: "button Reset secret",
		want: []wantMark{{interaction, "textbox Secret", "textbox Secret"}}},
	{name: "a radio unchecks a covered radio of its group", kind: "click", target: "radio Basic",
		want: []wantMark{{interaction, "radio Pro", "radio Pro"}}},
	{name: "label for= a covered checkbox", kind: "click", target: "css:#terms-label",
		want: []wantMark{{interaction, "css:#terms", "css:#terms"}}},
	{name: "click the covered checkbox", kind: "click", target: "css:#terms",
		want: []wantMark{{interaction, "css:#terms", "css:#terms"}}},
	{name: "Space on the covered checkbox", kind: "key", target: "css:#terms", key: " ",
		want: []wantMark{{interaction, "css:#terms", "css:#terms"}}},
	{name: "a value in another case counts as interaction", kind: "click", target: "button Odd case",
		want: []wantMark{{interaction, "css:[data-poppy-user-step=Interaction]", "button Odd case"}}},
	{name: "submission on a div counts as interaction", kind: "click", target: "button Div submission",
		want: []wantMark{{interaction, "css:div[data-poppy-user-step=submission]", "button Div submission"}}},
	{name: "an empty value counts as interaction", kind: "click", target: "link Empty mark link",
		want: []wantMark{{interaction, "css:div[data-poppy-user-step='']", "link Empty mark link"}}},
	{name: "an unknown value on an ARIA widget", kind: "key", target: "checkbox Bogus widget", key: " ",
		want: []wantMark{{interaction, "checkbox Bogus widget", "checkbox Bogus widget"}}},
	{name: "a field owned by an interaction form", kind: "type", target: "textbox Inside",
		want: []wantMark{{interaction, "css:#locked", "textbox Inside"}}},
	{name: "form= naming another unmarked form is not covered", kind: "type", target: "textbox Elsewhere"},
	{name: "form= naming a missing id is not covered", kind: "type", target: "textbox Missing"},
	{name: "form= naming an interaction form from outside", kind: "type", target: "textbox Outside",
		want: []wantMark{{interaction, "css:#locked", "textbox Outside"}}},
	{name: "text inside an interaction form", kind: "click", target: "css:#locked-text",
		want: []wantMark{{interaction, "css:#locked", "css:#locked-text"}}},
	{name: "a covered contenteditable", kind: "type", target: "textbox Notes",
		want: []wantMark{{interaction, "textbox Notes", "textbox Notes"}}},
	{name: "an unmarked contenteditable is allowed", kind: "type", target: "textbox Draft"},
	{name: "a marked open shadow host covers its tree", kind: "click", target: "button Shadow button",
		want: []wantMark{{interaction, "css:#host", "button Shadow button"}}},
	{name: "a button in an unmarked shadow tree is allowed", kind: "click", target: "button Plain shadow button"},
	{name: "a form-associated custom element owned by an interaction form", kind: "type", target: "textbox Custom field",
		want: []wantMark{{interaction, "css:#face-form", "textbox Custom field"}}},
	{name: "an overlay covering a button", kind: "click", target: "button Under overlay", hidden: true},
	{name: "an element removed after the scan is stale", kind: "click", target: "button Going away",
		setup: `document.getElementById("gone").remove();`, stale: true},
	{name: "an element replaced after the scan is stale", kind: "click", target: "button Going away",
		setup: `const b = document.getElementById("gone"); b.replaceWith(b.cloneNode(true));`, stale: true},
	{name: "a mark added after the scan still refuses", kind: "click", target: "button Marked later",
		setup: `document.getElementById("later").setAttribute("data-poppy-user-step", "interaction");`,
		want:  []wantMark{{interaction, "button Marked later", "button Marked later"}}},
	{name: "scrolling a covered element is allowed", kind: "scroll", target: "textbox Inside"},
}

func TestCheckCheckIn(t *testing.T) { runChecks(t, "/checkin.html", checkInCases) }
func TestCheckRules(t *testing.T)   { runChecks(t, "/rules.html", ruleCases) }

func runChecks(t *testing.T, path string, cases []checkCase) {
	page := newPage(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tp, ctx := open(t, path, page)
			s := tp.scan(ctx, t)
			a := marks.Action{Kind: tc.kind, Key: tc.key}
			if tc.target != "" {
				a.ID = tp.id(ctx, t, s, tc.target)
			}
			if tc.setup != "" {
				tp.eval(ctx, t, tc.setup)
			}
			v, err := marks.Check(ctx, tp.frame, a)
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			var want []marks.Mark
			for _, w := range tc.want {
				want = append(want, marks.Mark{Kind: w.kind, Marked: tp.id(ctx, t, s, w.marked), Touches: tp.id(ctx, t, s, w.touching)})
			}
			if diff := cmp.Diff(want, v.Marks, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Marks (-want +got):\n%s", diff)
			}
			if v.Stale != tc.stale {
				t.Errorf("Stale = %v, want %v", v.Stale, tc.stale)
			}
			if v.Obscured != tc.hidden {
				t.Errorf("Obscured = %v, want %v", v.Obscured, tc.hidden)
			}
			if tc.kind == "click" && !tc.stale && v.Point == nil {
				t.Errorf("Point = nil for a visible click target")
			}
		})
	}
}
