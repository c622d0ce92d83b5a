package marks_test

import (
	"testing"

	"github.com/poppy-browser/poppy-browser/marks"
)

// BenchmarkScanFrame scans a page of 2,400 buttons in 100 forms.
func BenchmarkScanFrame(b *testing.B) {
	tp, ctx := open(b, "/buttons.html")
	n := 0
	for b.Loop() {
		s, err := marks.ScanFrame(ctx, tp.frame)
		if err != nil {
			b.Fatal(err)
		}
		n = len(s.Elements)
	}
	if n < 2400 {
		b.Fatalf("scan has %d elements, want at least 2400", n)
	}
}

// BenchmarkCheck decides a click on a button of the 2,400-button page
// (hit test included), in one round trip.
func BenchmarkCheck(b *testing.B) {
	tp, ctx := open(b, "/buttons.html")
	id, err := marks.IDOf(ctx, tp.frame, "#b1210")
	if err != nil || id == 0 {
		b.Fatalf("IDOf = %d, %v", id, err)
	}
	for b.Loop() {
		v, err := marks.Check(ctx, tp.frame, marks.Action{Kind: "click", ID: id})
		if err != nil || v.Obscured || v.Point == nil {
			b.Fatalf("Check = %+v, %v", v, err)
		}
	}
}

// BenchmarkCheckMarked decides a refused click (a submit-less button in a
// submission form is allowed; this one is the form's first button, marked
// by the test) to include the mark walk.
func BenchmarkCheckMarked(b *testing.B) {
	tp, ctx := open(b, "/buttons.html")
	tp.eval(ctx, b, `document.getElementById("b0").setAttribute("data-poppy-user-step", "interaction");`)
	id, err := marks.IDOf(ctx, tp.frame, "#b0")
	if err != nil || id == 0 {
		b.Fatalf("IDOf = %d, %v", id, err)
	}
	for b.Loop() {
		v, err := marks.Check(ctx, tp.frame, marks.Action{Kind: "click", ID: id})
		if err != nil || len(v.Marks) == 0 {
			b.Fatalf("Check = %+v, %v", v, err)
		}
	}
}
