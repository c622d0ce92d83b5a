package marks_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poppy-browser/poppy-browser/internal/golden"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// markValues are attribute values that spec.KindOf must decide the same
// way as the scanner, on a form and on a div.
var markValues = []string{"interaction", "submission", "", "Interaction", "SUBMISSION", " submission", "submission ", "bogus", "user"}

func kindsPage() string {
	var sb strings.Builder
	sb.WriteString("<!doctype html><title>Kinds</title>\n")
	for _, v := range markValues {
		fmt.Fprintf(&sb, "<form data-poppy-user-step=\"%s\"><input name=f></form>\n", html.EscapeString(v))
		fmt.Fprintf(&sb, "<div data-poppy-user-step=\"%s\">x</div>\n", html.EscapeString(v))
	}
	return sb.String()
}

// TestMarkKinds: a value other than interaction or submission, or
// submission on anything but a form, counts as interaction (section 4).
func TestMarkKinds(t *testing.T) {
	tp, ctx := open(t, "/kinds.html")
	s := tp.scan(ctx, t)
	var want, got []string
	for _, v := range markValues {
		want = append(want, fmt.Sprintf("form %q %s", v, spec.KindOf(v, true)), fmt.Sprintf("div %q %s", v, spec.KindOf(v, false)))
	}
	i := 0
	for _, e := range s.Elements {
		if e.Marked == nil || e.Marked.Marked != e.ID {
			continue
		}
		if i/2 < len(markValues) {
			got = append(got, fmt.Sprintf("%s %q %s", e.Tag, markValues[i/2], e.Marked.Kind))
		}
		i++
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
}

func find(t *testing.T, s marks.Scan, role, name string) marks.Element {
	t.Helper()
	for _, e := range s.Elements {
		if e.Role == role && e.Name == name {
			return e
		}
	}
	t.Fatalf("no %s %q in scan", role, name)
	return marks.Element{}
}

// TestScanCheckIn: what the agent reads of the check-in page, with the
// User's passport number typed and the agent's seat chosen.
func TestScanCheckIn(t *testing.T) {
	tp, ctx := open(t, "/checkin.html")
	s := tp.scan(ctx, t)
	seat := find(t, s, "combobox", "Seat")
	if got := selectByKeys(ctx, t, tp, seat.ID, "Aisle"); !cmp.Equal(got, []string{"aisle"}) {
		t.Fatalf("selecting Aisle left %v selected; want [aisle]", got)
	}
	tp.eval(ctx, t, `document.querySelector("[name=passport_number]").value = "P1234567";`)
	s = tp.scan(ctx, t)
	raw, _ := json.Marshal(s)
	if strings.Contains(string(raw), "P1234567") {
		t.Errorf("scan contains the User's passport number: %s", raw)
	}
	if s.Title != "Check in · Demo Airline" || !strings.Contains(s.URL, "/checkin.html?") {
		t.Errorf("URL, Title = %q, %q", s.URL, s.Title)
	}

	form := find(t, s, "form", "check-in")
	type line struct {
		Role, Name, Value string
		UserField         bool
		Marked            *marks.ElementMark
		Form              int
		Text              string
	}
	var lines []line
	for _, e := range s.Elements {
		lines = append(lines, line{e.Role, e.Name, e.Value, e.UserField, e.Marked, e.Form, e.Text})
	}
	passport := find(t, s, "textbox", "Passport number")
	want := []line{
		{Role: "banner"}, // a landmark's line: the lines under it hang from it
		{Role: "link", Name: "Demo Airline"},
		{Role: "text", Text: "Demo Airline Guest"}, // the link is inline in its line
		{Role: "main"},
		{Role: "h1", Text: "Check in for booking bkg_4Rt9"},
		{Role: "form", Name: "check-in", Marked: &marks.ElementMark{Kind: spec.Submission, Marked: form.ID}},
		{Role: "combobox", Name: "Seat", Value: "aisle", Form: form.ID},
		{Role: "textbox", Name: "Passport number", UserField: true, Form: form.ID, Marked: &marks.ElementMark{Kind: spec.Interaction, Marked: passport.ID}},
		{Role: "button", Name: "Check in", Form: form.ID, Marked: &marks.ElementMark{Kind: spec.Submission, Marked: form.ID}},
		{Role: "button", Name: "Upgrade seat", Form: form.ID, Marked: &marks.ElementMark{Kind: spec.Submission, Marked: form.ID}},
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("scan (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Choose a seat", "Aisle", "Window", "Middle"}, seat.Options); diff != "" {
		t.Errorf("seat options (-want +got):\n%s", diff)
	}
	if seat.Box.Width <= 0 || seat.Box.Height <= 0 {
		t.Errorf("seat box = %+v, want a size", seat.Box)
	}
}

// TestScanRules: hidden content is skipped, marked forms are kept, covered
// values never appear, shadow trees are read in place.
func TestScanRules(t *testing.T) {
	tp, ctx := open(t, "/rules.html")
	tp.eval(ctx, t, `document.getElementById("terms").checked = true;`)
	s := tp.scan(ctx, t)
	raw, _ := json.Marshal(s)
	text := string(raw)
	for _, secret := range []string{"inside-secret", "outside-secret", "editable-secret"} {
		if strings.Contains(text, secret) {
			t.Errorf("scan contains the covered value %q", secret)
		}
	}
	for _, hidden := range []string{"Hidden button", "Invisible paragraph", "Aria hidden paragraph"} {
		if strings.Contains(text, hidden) {
			t.Errorf("scan contains hidden %q", hidden)
		}
	}
	if e := find(t, s, "textbox", "Elsewhere"); e.Value != "elsewhere-visible" || e.UserField {
		t.Errorf("Elsewhere = %+v, want its value, not a User field", e)
	}
	if e := find(t, s, "textbox", "Draft"); e.Value != "draft-visible" {
		t.Errorf("Draft value = %q", e.Value)
	}
	if e := find(t, s, "checkbox", "I agree to the terms"); !e.UserField || e.Checked != nil {
		t.Errorf("covered checkbox = %+v, want a User field without its state", e)
	}
	find(t, s, "button", "Shadow button")
	found := false
	for _, e := range s.Elements {
		if e.Tag == "form" && e.Marked != nil && e.Marked.Kind == spec.Submission && e.Box.Width == 0 {
			found = true // the hidden marked form
		}
		if e.Role == "paragraph" && e.Text == "Shadow text" && e.Depth < 1 {
			t.Errorf("shadow text depth = %d, want under its marked host", e.Depth)
		}
	}
	if !found {
		t.Errorf("hidden marked form missing from the scan")
	}
}

func TestHelpers(t *testing.T) {
	tp, ctx := open(t, "/rules.html")
	s := tp.scan(ctx, t)
	name := find(t, s, "textbox", "Full name")
	if err := marks.Focus(ctx, tp.frame, name.ID); err != nil {
		t.Fatalf("Focus: %v", err)
	}
	v, err := marks.Check(ctx, tp.frame, marks.Action{Kind: "key", ID: name.ID, Key: "a"})
	if err != nil || !v.Focused || len(v.Marks) != 0 {
		t.Errorf("Check after Focus = %+v, %v; want focused, no marks", v, err)
	}
	if err := marks.ScrollBy(ctx, tp.frame, 0, 0, 200); err != nil {
		t.Errorf("ScrollBy window: %v", err)
	}
	if _, err := marks.SelectKeys(ctx, tp.frame, name.ID, []string{"x"}); err == nil {
		t.Errorf("SelectKeys on a text field succeeded")
	}
	gone := find(t, s, "button", "Going away")
	tp.eval(ctx, t, `document.getElementById("gone").remove();`)
	if err := marks.Focus(ctx, tp.frame, gone.ID); !errors.Is(err, marks.ErrStale) {
		t.Errorf("Focus on a removed element = %v, want ErrStale", err)
	}
	if _, err := marks.ScanFrom(ctx, tp.frame, gone.ID); !errors.Is(err, marks.ErrStale) {
		t.Errorf("ScanFrom a removed element = %v, want ErrStale", err)
	}
	if _, err := marks.Check(ctx, tp.frame, marks.Action{Kind: "wave", ID: name.ID}); err == nil {
		t.Errorf("Check of an unknown kind succeeded")
	}
}

// TestScanGolden pins the JSON shape of a scan of the check-in page (boxes
// zeroed: they depend on fonts).
func TestScanGolden(t *testing.T) {
	tp, ctx := open(t, "/checkin.html")
	s := tp.scan(ctx, t)
	s.URL = strings.Split(s.URL, "?")[0]
	for i := range s.Elements {
		s.Elements[i].Box = marks.Rect{}
	}
	got, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden.Check(t, "testdata/checkin.scan.json", got)
}

// TestScannerRuns shows that the joined scanner (js/scanner/) is a valid
// script: in a fresh document its world has globalThis.poppyMarks with
// every function the package calls (exports_gen.go, written from
// exports.js), and no other.
func TestScannerRuns(t *testing.T) {
	tp, ctx := open(t, "/rules.html")
	var names []string
	if err := tp.frame.Call(ctx, marks.World, `function() { return Object.keys(globalThis.poppyMarks || {}).sort(); }`, &names); err != nil {
		t.Fatalf("reading the scanner's functions: %v", err)
	}
	want := marks.ScannerFuncNames()
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("globalThis.poppyMarks functions (-want +got):\n%s", diff)
	}
}

// TestActionable shows the scanner's one notion of what the agent may act
// on (a snapshot gives it a ref): controls, links, widgets, editable roots
// and marked elements; content lines and iframes are not.
func TestActionable(t *testing.T) {
	tp, ctx := open(t, "/actionable.html")
	s := tp.scan(ctx, t)
	got := map[string]bool{}
	for _, e := range s.Elements {
		label := e.Name
		if label == "" {
			label = e.Text
		}
		got[e.Role+" "+label] = e.Actionable
	}
	// Lines of text (id 0) are never actionable; a control inside a line
	// of text is a part of it and keeps its own entry.
	want := map[string]bool{
		"h1 Heading":                       false,
		"text Paragraph":                   false,
		"paragraph Marked paragraph":       true,
		"text Marked paragraph":            false,
		"paragraph Editable paragraph":     true,
		"textbox Editable div":             true,
		"button Button":                    true,
		"link Link":                        true,
		"button Widget":                    true,
		"listbox Listbox":                  true,
		"option Option":                    true,
		"text Label without control Field": false,
		"textbox Field":                    true,
		"iframe Frame":                     false,
		"form Marked form":                 true,
		"text In the form":                 false,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("actionable by element (-want +got):\n%s", diff)
	}
}
