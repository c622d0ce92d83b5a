package marks_test

import (
	"fmt"
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

// BenchmarkCheckInPage times the scanner's check itself, inside the page
// (100 checks per round trip, so the round trip and the machine's load
// weigh little), of an allowed click on the 2,400-button page, unarmed and
// armed: arming also walks the document for shadow roots to guard.
func BenchmarkCheckInPage(b *testing.B) {
	for _, arm := range []bool{false, true} {
		b.Run(fmt.Sprintf("arm=%v", arm), func(b *testing.B) {
			tp, ctx := open(b, "/buttons.html")
			id, err := marks.IDOf(ctx, tp.frame, "#b1210")
			if err != nil || id == 0 {
				b.Fatalf("IDOf = %d, %v", id, err)
			}
			const per = 100
			var ms float64
			n := 0
			for b.Loop() {
				var took float64
				err := tp.frame.Call(ctx, marks.World, `function(id, arm, per) {
					const t0 = performance.now();
					for (let i = 0; i < per; i++) globalThis.poppyMarks.check({kind: "click", id, key: "", arm});
					globalThis.poppyMarks.disarm();
					return performance.now() - t0;
				}`, &took, id, arm, per)
				if err != nil {
					b.Fatal(err)
				}
				ms += took
				n += per
			}
			b.ReportMetric(ms*1e6/float64(n), "page-ns/check")
		})
	}
}
