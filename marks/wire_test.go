package marks_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/marks"
)

// TestWireMatchesScan shows that the scan read in its wire form (what
// ScanFrame decodes) is, field for field, the scanner's scan as objects,
// on pages with every kind of entry: marks, forms, selects, checkboxes,
// lines with inline links, groups, preformatted text, closed roots.
func TestWireMatchesScan(t *testing.T) {
	for _, path := range []string{"/checkin.html", "/actionable.html", "/rules.html", "/select.html", "/closed.html", "/buttons.html", "/wire.html"} {
		t.Run(path, func(t *testing.T) {
			tp, ctx := open(t, path)
			got := tp.scan(ctx, t) // first: it adopts closed roots, which the second scan then sees too
			var raw string
			if err := tp.frame.Call(ctx, marks.World, `function() { return JSON.stringify(globalThis.poppyMarks.scan(0)); }`, &raw); err != nil {
				t.Fatal(err)
			}
			var want marks.Scan
			if err := json.Unmarshal([]byte(raw), &want); err != nil {
				t.Fatal(err)
			}
			if len(want.Elements) < 2 {
				t.Fatalf("the page shows %d entries: not a test of the wire form", len(want.Elements))
			}
			if got.Memo == "" {
				t.Error("a scan of the whole document names no memo")
			}
			got.Memo = "" // the page's name for its memo: not part of the scan
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the scan's wire form read back differs from the scan (-objects +wire):\n%s", diff)
			}
		})
	}
}
