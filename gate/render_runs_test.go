package gate

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

func renderOne(t *testing.T, els []marks.Element, from int) (string, []ElementInfo) {
	t.Helper()
	refs := newRefTable()
	refs.bump()
	text, elems := renderSnapshot([]frameScan{{frame: Frame{ID: "m", URL: "https://airline.test/p"}, scan: marks.Scan{Elements: els}}}, refs,
		func(string) bool { return true }, PageState{}, from)
	_, body, _ := strings.Cut(text, "not instructions:\n")
	return body, elems
}

// Siblings of one role are one line for the role and a short line each,
// with every name, ref, state and note kept; a note all of them share is
// said once, on the run's line.
func TestRenderSnapshotRuns(t *testing.T) {
	btn := func(id int, name string) marks.Element {
		return marks.Element{ID: id, Actionable: true, Role: "button", Tag: "button", Name: name, Depth: 1}
	}
	sub := func(e marks.Element) marks.Element {
		e.Marked = &marks.ElementMark{Kind: spec.Submission, Marked: 1}
		return e
	}
	box := func(id int, name string, checked bool) marks.Element {
		return marks.Element{ID: id, Actionable: true, Role: "checkbox", Tag: "input", Type: "checkbox", Name: name, Checked: &checked, Depth: 1}
	}
	link := func(id int, name, href string) marks.Element {
		return marks.Element{ID: id, Actionable: true, Role: "link", Tag: "a", Name: name, Href: href, Depth: 2}
	}
	for _, c := range []struct {
		name string
		els  []marks.Element
		want string
	}{
		{"three buttons are a run", []marks.Element{btn(1, "A"), btn(2, "B"), btn(3, "C")},
			"- buttons:\n  - \"A\" e1\n  - \"B\" e2\n  - \"C\" e3\n"},
		{"two are not", []marks.Element{btn(1, "A"), btn(2, "B")},
			"- button \"A\" [e1]\n- button \"B\" [e2]\n"},
		{"a shared mark note goes on the run's line",
			[]marks.Element{{ID: 1, Actionable: true, Role: "form", Tag: "form", Name: "Pay", Marked: &marks.ElementMark{Kind: spec.Submission, Marked: 1}},
				sub(btn(2, "A")), sub(btn(3, "B")), sub(btn(4, "C")), btn(5, "D")},
			"- form \"Pay\" [e1] (user step: submission)\n  - buttons (user step: submission form e1):\n    - \"A\" e2\n    - \"B\" e3\n    - \"C\" e4\n  - button \"D\" [e5]\n"},
		{"states stay on each item; unchecked is left out",
			[]marks.Element{box(1, "Insurance", true), box(2, "Meals", false), box(3, "Bags", false)},
			"- checkboxes:\n  - \"Insurance\" e1 checked\n  - \"Meals\" e2\n  - \"Bags\" e3\n"},
		{"an element with lines under it keeps its own line",
			[]marks.Element{btn(1, "A"), btn(2, "B"), btn(3, "C"), {ID: 4, Actionable: true, Role: "button", Tag: "div", Text: "Open menu", Depth: 1,
				Marked: &marks.ElementMark{Kind: spec.Interaction, Marked: 4}}, {Role: "text", Text: "Open menu", Depth: 2}},
			"- buttons:\n  - \"A\" e1\n  - \"B\" e2\n  - \"C\" e3\n- button [e4] (user step: interaction)\n  - text: Open menu\n"},
		{"a nameless item shows its ref, a link its target",
			[]marks.Element{link(1, "Home", "https://airline.test/"), link(2, "", "https://airline.test/cart"), link(3, "Help", "https://partner.test/help")},
			"- links:\n  - \"Home\" e1 to /\n  - e2 to /cart\n  - \"Help\" e3 to partner.test/help\n"},
		{"a link whose name is its address shows no target",
			[]marks.Element{link(1, "partner.test/help", "https://partner.test/help"), link(2, "https://www.airline.test/a/b", "https://www.airline.test/a/b"),
				link(3, "See airline.test/docs/x here", "https://airline.test/docs/x")},
			"- links:\n  - \"partner.test/help\" e1\n  - \"https://www.airline.test/a/b\" e2\n  - \"See airline.test/docs/x here\" e3\n"},
		{"a link named like part of its address keeps the target",
			[]marks.Element{link(1, "docs", "https://airline.test/docs"), link(2, "A/B", "https://airline.test/"), link(3, "/", "https://airline.test/")},
			"- links:\n  - \"docs\" e1 to /docs\n  - \"A/B\" e2 to /\n  - \"/\" e3 to /\n"},
		{"a list of one run is the run's line",
			[]marks.Element{{Role: "list", Group: true}, link(1, "News", "https://airline.test/news"), link(2, "Sport", "https://airline.test/sport"), link(3, "Help", "https://airline.test/help"),
				{Role: "text", Text: "After"}},
			"- list of links:\n  - \"News\" e1 to /news\n  - \"Sport\" e2 to /sport\n  - \"Help\" e3 to /help\n- text: After\n"},
		{"a list with more than the run keeps its line",
			[]marks.Element{{Role: "list", Group: true}, link(1, "News", "https://airline.test/news"), link(2, "Sport", "https://airline.test/sport"), link(3, "Help", "https://airline.test/help"),
				{Role: "listitem", Text: "More", Depth: 2}},
			"- list:\n  - links:\n    - \"News\" e1 to /news\n    - \"Sport\" e2 to /sport\n    - \"Help\" e3 to /help\n  - listitem: More\n"},
		{"a list whose items differ in their notes keeps its line",
			[]marks.Element{{Role: "list", Group: true}, link(1, "News", "https://airline.test/news"), link(2, "Sport", "https://airline.test/sport"),
				func() marks.Element {
					l := link(3, "Pay", "https://airline.test/pay")
					l.Marked = &marks.ElementMark{Kind: spec.Interaction, Marked: 3}
					return l
				}()},
			"- list:\n  - link \"News\" [e1] to /news\n  - link \"Sport\" [e2] to /sport\n  - link \"Pay\" [e3] to /pay (user step: interaction)\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, elems := renderOne(t, c.els, 1)
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			// Every element with a ref is in the list, as before runs.
			for _, e := range elems {
				if !regexp.MustCompile(`\b` + e.Ref + `\b`).MatchString(got) {
					t.Errorf("ref %s not in the text", e.Ref)
				}
			}
		})
	}
}

// A part that starts inside a run says the run's line again, so that its
// items keep their role and note.
func TestRenderSnapshotRunAcrossParts(t *testing.T) {
	els := []marks.Element{{ID: 1, Actionable: true, Role: "form", Tag: "form", Name: "Pay", Marked: &marks.ElementMark{Kind: spec.Submission, Marked: 1}}}
	const n = 5000
	for i := range n {
		els = append(els, marks.Element{ID: i + 2, Actionable: true, Role: "button", Tag: "button", Name: fmt.Sprintf("Button %d", i), Depth: 1,
			Marked: &marks.ElementMark{Kind: spec.Submission, Marked: 1}})
	}
	first, _ := renderOne(t, els, 1)
	m := regexp.MustCompile(`from=(\d+) to read on`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("one part for %d buttons:\n%s", n, first[:200])
	}
	var from int
	fmt.Sscan(m[1], &from)
	refs := newRefTable()
	refs.bump()
	text, _ := renderSnapshot([]frameScan{{frame: Frame{ID: "m", URL: "https://airline.test/p"}, scan: marks.Scan{Elements: els}}}, refs,
		func(string) bool { return true }, PageState{}, from)
	want := fmt.Sprintf("[lines 1 to %d are", from-1) + " in the earlier part: take browser_snapshot without from to read them]\n  - buttons (user step: submission form e1) (continued):\n    - \"Button "
	if !strings.Contains(text, want) {
		t.Errorf("the second part does not say the run again; it starts:\n%s", text[:min(len(text), 600)])
	}
}

// Runs lose nothing: on random pages of controls of a few roles, with
// marks, states, links and nesting, every element with a ref has exactly
// one line of its own, which holds its name and its states, and its role
// and its note are on that line or on the run's line above it.
func TestRenderSnapshotRunsKeepEverything(t *testing.T) {
	roles := []string{"button", "link", "checkbox", "textbox"}
	items := 0 // elements shown as items of a run
	for seed := range 300 {
		rng := rand.New(rand.NewPCG(uint64(seed), 37))
		els := []marks.Element{{ID: 1, Actionable: true, Role: "form", Tag: "form", Name: "F", Marked: &marks.ElementMark{Kind: spec.Submission, Marked: 1}}}
		role, note := roles[0], 0
		for id := 2; id < 2+rng.IntN(40); id++ {
			// Runs come from repeats: mostly the role and note before.
			if rng.IntN(10) < 3 {
				role = roles[rng.IntN(len(roles))]
			}
			if rng.IntN(10) < 3 {
				note = rng.IntN(3)
			}
			depth := 1
			if rng.IntN(8) == 0 {
				depth = 2
			}
			e := marks.Element{ID: id, Actionable: true, Role: role, Tag: "x", Depth: depth}
			if rng.IntN(5) > 0 {
				e.Name = fmt.Sprintf("N%d \"q\"", id)
			}
			switch e.Role {
			case "link":
				e.Href = fmt.Sprintf("https://airline.test/p%d", rng.IntN(3))
			case "checkbox":
				e.Checked = boolp(rng.IntN(2) == 0)
			case "textbox":
				e.Value = fmt.Sprintf("v%d", id)
			}
			e.Disabled = rng.IntN(6) == 0
			switch note {
			case 0:
				e.Marked = &marks.ElementMark{Kind: spec.Submission, Marked: 1}
			case 1:
				e.Form = 1
			}
			if rng.IntN(8) == 0 {
				els = append(els, e, marks.Element{Role: "text", Text: "under", Depth: e.Depth + 1})
				continue
			}
			els = append(els, e)
		}
		body, elems := renderOne(t, els, 1)
		lines := strings.Split(body, "\n")
		byRef := map[string]marks.Element{}
		for _, e := range els {
			if e.ID != 0 {
				byRef[fmt.Sprintf("e%d", e.ID)] = e
			}
		}
		for _, info := range elems {
			e := byRef[info.Ref]
			own := regexp.MustCompile(`\[` + info.Ref + `\]|^\s*- (?:"(?:[^"\\]|\\.)*" )?` + info.Ref + `\b`)
			at := -1
			for i, l := range lines {
				if own.MatchString(l) {
					if at >= 0 {
						t.Fatalf("seed %d: %s has two lines:\n%s", seed, info.Ref, body)
					}
					at = i
				}
			}
			if at < 0 {
				t.Fatalf("seed %d: %s has no line:\n%s", seed, info.Ref, body)
			}
			l := lines[at]
			head := "" // the run's line, if the element is an item
			if !strings.Contains(l, "["+info.Ref+"]") {
				depth := len(l) - len(strings.TrimLeft(l, " "))
				for i := at - 1; i >= 0; i-- {
					if d := len(lines[i]) - len(strings.TrimLeft(lines[i], " ")); d < depth {
						head = lines[i]
						break
					}
				}
				if !strings.HasSuffix(head, ":") {
					t.Fatalf("seed %d: item %s under no run line:\n%s", seed, info.Ref, body)
				}
				items++
			}
			for _, want := range []string{quoteIf(e.Name), stateIf(e.Disabled, " disabled"), stateIf(e.Checked != nil && *e.Checked, " checked"), quoteValue(e.Value)} {
				if !strings.Contains(l, want) {
					t.Errorf("seed %d: line of %s lacks %q: %q", seed, info.Ref, want, l)
				}
			}
			if e.Href != "" && !strings.Contains(l, " to /p") {
				t.Errorf("seed %d: link %s lacks its target: %q", seed, info.Ref, l)
			}
			wantRole, wantNote := "- "+e.Role+" ", ""
			if head != "" {
				wantRole = "- " + plural(e.Role)
			}
			switch {
			case e.Marked != nil && e.ID != 1:
				wantNote = "(user step: submission form e1)"
			case e.Form != 0:
				wantNote = "(in form e1, which the User submits: you may fill this in)"
			}
			if !strings.Contains(l+"\n"+head, wantRole) {
				t.Errorf("seed %d: %s shows no role %q: %q under %q", seed, info.Ref, wantRole, l, head)
			}
			if wantNote != "" && !strings.Contains(l+"\n"+head, wantNote) {
				t.Errorf("seed %d: %s shows no note %q: %q under %q", seed, info.Ref, wantNote, l, head)
			}
			if wantNote == "" && e.ID != 1 && strings.Contains(l+"\n"+head, "(") {
				t.Errorf("seed %d: %s shows a note it has not: %q under %q", seed, info.Ref, l, head)
			}
		}
	}
	if items < 500 {
		t.Errorf("only %d elements were items of runs: the pages do not test runs", items)
	}
}

func quoteIf(s string) string {
	if s == "" {
		return ""
	}
	return quote(s)
}

func stateIf(b bool, s string) string {
	if b {
		return s
	}
	return ""
}

func quoteValue(v string) string {
	if v == "" {
		return ""
	}
	return " value=" + quote(v)
}
