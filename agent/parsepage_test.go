package agent

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The scripted model reads runs of siblings of one role ("- buttons:"
// and a short line for each) as elements of that role, with their names,
// refs and values, and a run that a part of the snapshot continues too.
func TestParsePageRuns(t *testing.T) {
	text := `- form "group 0" [e7] (user step: submission)
  - text: Group 0
  - buttons (user step: submission form e7):
    - "Button 0" e8
    - "Button \"1\"" e9
    - e10 disabled
  - textboxes:
    - "First" e11 value="Ada"
    - "Last" e12
  - checkboxes:
    - "Insurance" e13 checked
- status:
  - text: Saved
[lines 1 to 3 are in the earlier part: take browser_snapshot without from to read them]
  - switches (continued):
    - "Dark" e14
- link "Help" [e15] to /help
- list of links:
  - "Home" e16 to /
`
	got := ParsePage(text).Elements
	want := []SeenElement{
		{Role: "form", Name: "group 0", Ref: "e7"},
		{Role: "text", Name: "Group 0"},
		{Role: "buttons"},
		{Role: "button", Name: "Button 0", Ref: "e8"},
		{Role: "button", Name: `Button "1"`, Ref: "e9"},
		{Role: "button", Ref: "e10"},
		{Role: "textboxes:"},
		{Role: "textbox", Name: "First", Ref: "e11", Value: "Ada"},
		{Role: "textbox", Name: "Last", Ref: "e12"},
		{Role: "checkboxes:"},
		{Role: "checkbox", Name: "Insurance", Ref: "e13"},
		{Role: "status:"},
		{Role: "text", Name: "Saved"},
		{Role: "switches"},
		{Role: "switch", Name: "Dark", Ref: "e14"},
		{Role: "link", Name: "Help", Ref: "e15"},
		{Role: "list"},
		{Role: "link", Name: "Home", Ref: "e16"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	p := ParsePage(text)
	if e := p.Find(Match{Role: "button", Name: "Button 0"}); e == nil || e.Ref != "e8" {
		t.Errorf("Find button Button 0: %+v", e)
	}
}
