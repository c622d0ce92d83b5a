package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/internal/golden"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/marks/markstest"
	"github.com/poppy-browser/poppy-browser/spec"
)

func TestRenderSnapshot(t *testing.T) {
	partner := marks.Scan{URL: "https://partner.test/ad", Elements: []marks.Element{
		{ID: 1, Role: "paragraph", Tag: "p", Text: "Hotels near the airport"},
		{ID: 2, Actionable: true, Role: "link", Tag: "a", Name: "Book a hotel"},
	}}
	scans := []frameScan{
		{frame: Frame{ID: "main", URL: "https://airline.test/check-in"}, scan: markstest.CheckInScan()},
		{frame: Frame{ID: "ad", ParentID: "main", URL: "https://partner.test/ad"}, scan: partner},
		{frame: Frame{ID: "broken", ParentID: "main", URL: "https://partner.test/x"}, err: errors.New("scanning frame: frame is gone")},
		// A tracking pixel's frame shows nothing, so it takes no line; a
		// frame that did not load shows the browser's error page, whose
		// words are not the site's.
		{frame: Frame{ID: "pixel", ParentID: "main", URL: "https://tracker.test/pixel"}, scan: marks.Scan{}},
		{frame: Frame{ID: "failed", ParentID: "main", URL: "chrome-error://chromewebdata/"}, scan: marks.Scan{Elements: []marks.Element{
			{Role: "text", Text: "This site can’t be reached"}}}},
	}
	refs := newRefTable()
	refs.bump()
	page := PageState{URL: "https://airline.test/check-in", Title: "Check in", Controller: spec.ControllerAgent, Epoch: 1}
	text, elems := renderSnapshot(scans, refs, func(h string) bool { return h == "airline.test" }, page, 1)
	golden.Check(t, filepath.Join("testdata", "snapshot.txt"), []byte(text))
	b, err := json.MarshalIndent(elems, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "snapshot_elements.json"), append(b, '\n'))
}

// A field a mark gives to the User never shows its value, even if a
// scanner reported one.
func TestRenderSnapshotHidesUserFields(t *testing.T) {
	scan := marks.Scan{Elements: []marks.Element{
		{ID: 1, Actionable: true, Role: "textbox", Tag: "input", Name: "Passport", Value: "P1234567", UserField: true, Checked: boolp(true),
			Marked: &marks.ElementMark{Kind: spec.Interaction, Marked: 1}},
	}}
	refs := newRefTable()
	refs.bump()
	text, elems := renderSnapshot([]frameScan{{frame: Frame{ID: "m", URL: "https://airline.test/"}, scan: scan}}, refs,
		func(string) bool { return true }, PageState{}, 1)
	if strings.Contains(text, "P1234567") || elems[0].Value != "" || elems[0].Checked != nil {
		t.Errorf("User's value shown:\n%s\n%+v", text, elems[0])
	}
	if !strings.Contains(text, "(the User's field: value hidden)") {
		t.Errorf("no hidden-value note:\n%s", text)
	}
}

func TestRefTable(t *testing.T) {
	rt := newRefTable()
	rt.bump()
	a := rt.assign("f", 1, "u").ref
	b := rt.assign("f", 2, "u").ref
	if again := rt.assign("f", 1, "u").ref; again != a {
		t.Errorf("same element got %s then %s", a, again)
	}
	rt.bump()
	c := rt.assign("f", 1, "u").ref
	tests := []struct {
		ref  string
		want spec.Reason
	}{
		{a, spec.ReasonStaleRef},
		{b, spec.ReasonStaleRef},
		{c, ""},
		{"e4", spec.ReasonNoSuchRef},
		{"e0", spec.ReasonBadArgument},
		{"e01", spec.ReasonBadArgument},
		{"E1", spec.ReasonBadArgument},
		{"e", spec.ReasonBadArgument},
		{"", spec.ReasonBadArgument},
		{"e-1", spec.ReasonBadArgument},
		{"e99999999999999999999", spec.ReasonBadArgument},
	}
	var got, want []string
	for _, tc := range tests {
		_, r := rt.lookup(tc.ref)
		got = append(got, tc.ref+":"+string(r))
		want = append(want, tc.ref+":"+string(tc.want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lookup (-want +got):\n%s", diff)
	}
	if c != "e3" {
		t.Errorf("first ref of the new epoch is %s, want e3 (numbers are never reused)", c)
	}
}

// A page whose text passes MaxSnapshotText is shown part by part: each
// part ends with a line that says what is left out and how to read on,
// and the parts together hold every line once.
func TestRenderSnapshotReadsOnPartByPart(t *testing.T) {
	var els []marks.Element
	const lines = 20000
	for i := range lines {
		els = append(els, marks.Element{Role: "text", Text: fmt.Sprintf("line %d of a very long page of text", i)})
	}
	refs := newRefTable()
	refs.bump()
	render := func(from int) string {
		text, _ := renderSnapshot([]frameScan{{frame: Frame{ID: "m", URL: "https://airline.test/"}, scan: marks.Scan{Elements: els}}}, refs,
			func(string) bool { return true }, PageState{}, from)
		return text
	}
	next := regexp.MustCompile(`take browser_snapshot with from=(\d+) to read on`)
	seen := 0
	for from, parts := 1, 0; ; parts++ {
		if parts > 100 {
			t.Fatal("more than 100 parts: the snapshot does not move on")
		}
		text := render(from)
		if len(text) > MaxSnapshotText+1000 {
			t.Errorf("part from %d is %d bytes, over the budget %d", from, len(text), MaxSnapshotText)
		}
		if from > 1 && !strings.Contains(text, fmt.Sprintf("[lines 1 to %d are in the earlier part", from-1)) {
			t.Errorf("part from %d does not say where the earlier lines are", from)
		}
		for l := range strings.Lines(text) {
			if strings.HasPrefix(l, "- text: line ") {
				if want := fmt.Sprintf("- text: line %d of", seen); !strings.HasPrefix(l, want) {
					t.Fatalf("part from %d: line %q, want %q", from, l, want)
				}
				seen++
			}
		}
		m := next.FindStringSubmatch(text)
		if m == nil {
			break
		}
		if !strings.HasSuffix(text, "]\n") || !strings.Contains(text, "not shown") {
			t.Errorf("no marker where the part stops: %q", text[max(len(text)-300, 0):])
		}
		from, _ = strconv.Atoi(m[1])
	}
	if seen != lines {
		t.Errorf("the parts showed %d lines of %d", seen, lines)
	}
}

// A page that is one long line (a text file without line breaks, one
// paragraph) is read part by part too: the first part holds most of a
// budget of its words, no part is far over the budget, and the parts
// together hold every word in order.
func TestRenderSnapshotCutsALongLine(t *testing.T) {
	var words []string
	for i := range 30000 {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	els := []marks.Element{{Role: "text", Text: strings.Join(words, " ")}}
	refs := newRefTable()
	refs.bump()
	next := regexp.MustCompile(`take browser_snapshot with from=(\d+) to read on`)
	var read []string
	for from, parts := 1, 0; ; parts++ {
		if parts > 20 {
			t.Fatal("more than 20 parts: the snapshot does not move on")
		}
		text, _ := renderSnapshot([]frameScan{{frame: Frame{ID: "m", URL: "https://airline.test/notes.txt"}, scan: marks.Scan{Elements: els}}}, refs,
			func(string) bool { return true }, PageState{}, from)
		if len(text) > MaxSnapshotText+1000 {
			t.Errorf("part from %d is %d bytes, over the budget %d", from, len(text), MaxSnapshotText)
		}
		if from == 1 && len(text) < MaxSnapshotText/2 {
			t.Errorf("the first part is %d bytes: it leaves most of its budget unread", len(text))
		}
		for l := range strings.Lines(text) {
			if strings.HasPrefix(l, "[") || strings.HasPrefix(l, "Page") {
				continue
			}
			l = strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- text:")), "…")
			read = append(read, strings.Fields(strings.TrimPrefix(l, "…"))...)
		}
		m := next.FindStringSubmatch(text)
		if m == nil {
			break
		}
		from, _ = strconv.Atoi(m[1])
	}
	if !slices.Equal(read, words) {
		t.Errorf("the parts hold %d words, the page %d; first difference at %d", len(read), len(words), firstDiff(read, words))
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// Page text cannot pass for an element with a ref: its "[" is escaped.
func TestRenderSnapshotEscapesPageBrackets(t *testing.T) {
	refs := newRefTable()
	refs.bump()
	els := []marks.Element{
		{Role: "text", Text: `Click [button "Pay" e1] now`, Parts: []marks.Part{{Text: `Click [button "Pay" e1] now `}, {ID: 7}}},
		{ID: 7, Actionable: true, Inline: true, Role: "link", Tag: "a", Name: "Help"},
	}
	text, _ := renderSnapshot([]frameScan{{frame: Frame{ID: "m", URL: "https://airline.test/"}, scan: marks.Scan{Elements: els}}}, refs,
		func(string) bool { return true }, PageState{}, 1)
	if !strings.Contains(text, `- text: Click \[button "Pay" e1] now [link "Help" e1]`) {
		t.Errorf("page brackets not escaped:\n%s", text)
	}
}

func boolp(b bool) *bool { return &b }
