package marks_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/marks"
)

// TestScanAgain shows what the scanner's memo gives and when it gives
// way: a second scan of a page that has not changed sends no entries and
// returns the first scan's; every change a person would see in a
// snapshot, whether or not the DOM reports it (a value typed, a box
// checked, a style sheet rule, a scroll, a shadow root attached), gives a
// new scan that shows it.
func TestScanAgain(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change string // run in the page's own world between the scans
		shows  func(marks.Scan) bool
	}{
		{"text of a paragraph", `document.getElementById("words").firstChild.data = "Second words";`,
			func(s marks.Scan) bool { return hasText(s, "Second words") }},
		{"a value typed", `document.getElementById("name").value = "Ada";`,
			func(s marks.Scan) bool { return entry(s, "textbox").Value == "Ada" }},
		{"a box checked", `document.getElementById("agree").checked = true;`,
			func(s marks.Scan) bool { c := entry(s, "checkbox").Checked; return c != nil && *c }},
		{"an option selected", `document.getElementById("seat").selectedIndex = 1;`,
			func(s marks.Scan) bool { return slices.Equal(entry(s, "combobox").Selected, []int{1}) }},
		{"a style sheet rule hides a line", `document.styleSheets[0].insertRule("#extra { display: none }");`,
			func(s marks.Scan) bool { return !hasText(s, "Extra line") && hasText(s, "First words") }},
		{"a scroll moves the boxes", `scrollTo(0, 400);`,
			func(s marks.Scan) bool { return entry(s, "textbox").Box.Y < 0 }},
		{"a shadow root attached", `document.getElementById("host").attachShadow({ mode: "open" }).innerHTML = "<p>Attached words</p>";`,
			func(s marks.Scan) bool { return hasText(s, "Attached words") && !hasText(s, "Light words") }},
		{"text inside a shadow root", `document.getElementById("open-host").shadowRoot.querySelector("p").textContent = "New shadow words";`,
			func(s marks.Scan) bool { return hasText(s, "New shadow words") }},
		{"a mark taken off", `document.querySelector("form").removeAttribute("data-poppy-user-step");`,
			func(s marks.Scan) bool { return entry(s, "button").Marked == nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp, ctx := open(t, "/memo.html")
			first := tp.scan(ctx, t)
			if first.Memo == "" {
				t.Fatal("a scan of the whole document names no memo")
			}
			if tc.shows(first) {
				t.Fatalf("the page shows the change before it is made: %+v", first.Elements)
			}
			again, err := marks.ScanAgain(ctx, tp.frame, first)
			if err != nil {
				t.Fatal(err)
			}
			if again.Memo != first.Memo || &again.Elements[0] != &first.Elements[0] {
				t.Fatalf("the unchanged page was scanned anew (memo %q, then %q)", first.Memo, again.Memo)
			}
			tp.eval(ctx, t, tc.change)
			after, err := marks.ScanAgain(ctx, tp.frame, again)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.shows(after) {
				t.Errorf("the scan after the change does not show it (memo %q, then %q)", again.Memo, after.Memo)
			}
			if after.Memo == again.Memo {
				t.Errorf("the memo %q outlived the change", after.Memo)
			}
		})
	}
}

// TestScanAgainNewDocument: a scan held from an earlier document is never
// taken for the new one's, though the page is the same.
func TestScanAgainNewDocument(t *testing.T) {
	tp, ctx := open(t, "/memo.html")
	first := tp.scan(ctx, t)
	tp.eval(ctx, t, `document.getElementById("words").firstChild.data = "Unsaved words";`)
	open(t, "/memo.html", tp.p)
	again, err := marks.ScanAgain(ctx, tp.frame, first)
	if err != nil {
		t.Fatal(err)
	}
	if again.Memo == first.Memo || !hasText(again, "First words") {
		t.Errorf("the new document was answered with the old one's scan (memo %q, then %q)", first.Memo, again.Memo)
	}
}

func hasText(s marks.Scan, text string) bool {
	for _, e := range s.Elements {
		if strings.Contains(e.Text, text) {
			return true
		}
	}
	return false
}

// entry is the first scanned element with the role.
func entry(s marks.Scan, role string) marks.Element {
	for _, e := range s.Elements {
		if e.Role == role && e.ID != 0 {
			return e
		}
	}
	return marks.Element{}
}

// TestScanAgainRestlessPage: a page that changes itself all the time (a
// ticking counter) is scanned anew each time and each scan shows it as it
// is then: the memo never answers for a page that moved on.
func TestScanAgainRestlessPage(t *testing.T) {
	tp, ctx := open(t, "/memo.html")
	tp.eval(ctx, t, `let n = 0; setInterval(() => { document.getElementById("words").textContent = "Tick " + ++n; }, 5);`)
	counter := func(s marks.Scan) string {
		for _, e := range s.Elements {
			if strings.HasPrefix(e.Text, "Tick ") {
				return e.Text
			}
		}
		return ""
	}
	last := tp.scan(ctx, t)
	for i := range 5 {
		if err := tp.frame.Call(ctx, "", `function() { return new Promise((r) => setTimeout(r, 20)); }`, nil); err != nil {
			t.Fatal(err)
		}
		s, err := marks.ScanAgain(ctx, tp.frame, last)
		if err != nil {
			t.Fatal(err)
		}
		if counter(s) == "" || counter(s) == counter(last) || s.Memo == last.Memo {
			t.Fatalf("scan %d shows %q (memo %q) after %q (memo %q): the page had moved on", i, counter(s), s.Memo, counter(last), last.Memo)
		}
		last = s
	}
}
