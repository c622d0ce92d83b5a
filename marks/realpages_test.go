package marks_test

import (
	"testing"

	"github.com/poppy-browser/poppy-browser/marks"
)

// TestRealPageMarkup: markup seen on real news pages (Mozilla
// Readability's saved pages, bench/sidebyside -pages) that the scan once
// read wrong, each as the agent would notice it: a link with no name, a
// checkbox with no name and its words gone, a card link gone, a formula
// gone, markup in a name.
func TestRealPageMarkup(t *testing.T) {
	tp, ctx := open(t, "/realpages.html")
	s := tp.scan(ctx, t)
	named := func(role, name string) *marks.Element {
		for i, e := range s.Elements {
			if e.Role == role && e.Name == name {
				return &s.Elements[i]
			}
		}
		return nil
	}
	for _, c := range []struct{ what, role, name string }{
		{"a link whose words follow 2 KB of indentation", "link", "Story headline"},
		{"a checkbox whose label's words are in a paragraph", "checkbox", "I agree to the terms"},
		{"a link whose content is floated (no box of its own)", "link", "Card title"},
		{"a link with an image in noscript", "link", "Home page"},
	} {
		if named(c.role, c.name) == nil {
			t.Errorf("%s: no %s %q in the scan", c.what, c.role, c.name)
		}
	}
	if !hasText(s, "Area is πr2 here.") {
		t.Errorf("a formula in a sentence is not read with it")
	}
	// The floated card's link takes a click where its content is.
	card := named("link", "Card title")
	if card == nil {
		return
	}
	v, err := marks.Check(ctx, tp.frame, marks.Action{Kind: marks.ActionClick, ID: card.ID})
	if err != nil {
		t.Fatal(err)
	}
	if v.Point == nil || v.Obscured {
		t.Errorf("a click on the card's link has no point on it: %+v", v)
	}
}
