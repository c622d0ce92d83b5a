package marks

import (
	"fmt"
	"strings"
	"testing"
)

// elementsWire is a scan of n entries in the wire form, as the scanner
// sends the 5,000-element benchmark page: per section a heading, a line
// with an inline link, a list of two items, a field and a button.
func elementsWire(n int) string {
	var b strings.Builder
	b.WriteString(`["http://airline.test/fixtures/marks/elements-5000.html","Five thousand elements",0,"m.1",0,[0,"h1",0,0,"Catalogue"]`)
	id := 0
	for i := 0; b.Len() < n*48; i++ {
		fmt.Fprintf(&b, `,[0,"h2",0,0,"Item %d"],[%d,"link","details","a",0,17,184.86,%d.78,41.77,17,"","","",0,0,"http://airline.test/fixtures/marks/elements-5000.html#i%d"]`+
			`,[0,"text",0,0,"Description of item %d, with details .",["Description of item %d, with ",%d,"."]],[0,"list",0,8],[0,"listitem",1,0,"Colour %d"],[0,"listitem",1,0,"Size %d"]`+
			`,[%d,"spinbutton","Quantity","input",0,1,68,%d.59,40,21,"number"],[%d,"button","Order item %d","button",0,1,108,%d.59,90.08,21,"submit"]`,
			i, id+1, 80+174*i, i, i, i, id+1, i%5, i%3, id+2, 80+174*i, id+3, i, 80+174*i)
		id += 3
	}
	b.WriteString("]")
	return b.String()
}

// BenchmarkDecodeWire reads the scan of the 5,000-element page in the
// wire form: whole (a cold scan), and after one change, as runs of the
// caller's entries around the one entry scanned again.
func BenchmarkDecodeWire(b *testing.B) {
	whole := elementsWire(4000)
	base, err := decodeWire(whole, nil)
	if err != nil {
		b.Fatal(err)
	}
	n := len(base.Elements)
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(whole)))
		for b.Loop() {
			if _, err := decodeWire(whole, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	change := fmt.Sprintf(`["http://airline.test/fixtures/marks/elements-5000.html","Five thousand elements",0,"m.2",2,0,%d,[0,"text",0,0,"Changed words 1 "],%d,%d]`, n/2, n/2+1, n)
	b.Run("change", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := decodeWire(change, base.Elements)
			if err != nil || len(s.Elements) != n {
				b.Fatal(len(s.Elements), n, err)
			}
		}
	})
}
