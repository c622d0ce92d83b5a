package gate

import (
	"fmt"
	"testing"

	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// elementsScan is the scan of the 5,000-element benchmark page
// (testsite's elements-5000.html), entry for entry as the scanner gives
// it: n/10 sections of a heading, a line with a link in it, a list of two
// items, a field and a button; every seventh a marked form.
func elementsScan(n int) []marks.Element {
	const page = "http://airline.test/fixtures/marks/elements-5000.html"
	els := []marks.Element{{Role: "h1", Text: "Catalogue"}}
	id := 0
	y := 80.0
	box := func(x, w, h float64) marks.Rect { return marks.Rect{X: x, Y: y, Width: w, Height: h} }
	for i := range n / 10 {
		d, form := 0, 0
		if i%7 == 0 {
			id++
			form = id
			els = append(els, marks.Element{ID: id, Role: "form", Name: fmt.Sprintf("order %d", i), Tag: "form", Actionable: true,
				Marked: &marks.ElementMark{Kind: spec.Submission, Marked: id}, Box: box(8, 1264, 153.91)})
			d = 1
		}
		id++
		link := id
		els = append(els,
			marks.Element{Role: "h2", Depth: d, Text: fmt.Sprintf("Item %d", i)},
			marks.Element{ID: link, Role: "link", Name: "details", Tag: "a", Actionable: true, Href: fmt.Sprintf("%s#i%d", page, i), Inline: true, Box: box(184.86, 41.77, 17), Depth: d},
			marks.Element{Role: "text", Depth: d, Text: fmt.Sprintf("Description of item %d, with details .", i),
				Parts: []marks.Part{{Text: fmt.Sprintf("Description of item %d, with ", i)}, {ID: link}, {Text: "."}}},
			marks.Element{Role: "list", Group: true, Depth: d},
			marks.Element{Role: "listitem", Depth: d + 1, Text: fmt.Sprintf("Colour %d", i%5)},
			marks.Element{Role: "listitem", Depth: d + 1, Text: fmt.Sprintf("Size %d", i%3)})
		field := marks.Element{ID: id + 1, Role: "spinbutton", Name: "Quantity", Tag: "input", Actionable: true, Type: "number", Box: box(68, 40, 21), Depth: d}
		button := marks.Element{ID: id + 2, Role: "button", Name: fmt.Sprintf("Order item %d", i), Tag: "button", Actionable: true, Type: "submit", Box: box(108, 90.08, 21), Depth: d}
		if form != 0 {
			field.UserField, field.Form = true, form
			field.Marked = &marks.ElementMark{Kind: spec.Interaction, Marked: field.ID}
			button.Form = form
			button.Marked = &marks.ElementMark{Kind: spec.Submission, Marked: form}
		}
		els = append(els, field, button)
		id += 2
		y += 174
	}
	return els
}

// BenchmarkRenderSnapshot is the gate's rendering of the text of the
// 5,000-element page alone (pure Go): what a snapshot does after the scan
// crossed CDP, for each snapshot, cold, warm or after a change (the refs
// are those of the epoch, already given).
func BenchmarkRenderSnapshot(b *testing.B) {
	scans := []frameScan{{frame: Frame{ID: "m", URL: "http://airline.test/fixtures/marks/elements-5000.html"},
		scan: marks.Scan{Elements: elementsScan(5000)}}}
	refs := newRefTable()
	refs.bump()
	page := PageState{URL: scans[0].frame.URL, Title: "Five thousand elements", Epoch: 1, Controller: spec.ControllerAgent}
	company := func(string) bool { return true }
	text, _ := renderSnapshot(scans, refs, company, page, 0)
	b.ReportAllocs()
	for b.Loop() {
		text, _ = renderSnapshot(scans, refs, company, page, 0)
	}
	b.ReportMetric(float64(len(text)), "text-bytes")
}
