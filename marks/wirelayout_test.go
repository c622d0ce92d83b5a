package marks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/internal/golden"
)

// TestWireLayoutJS holds js/scanner/layout.js, the scanner's side of the
// wire layout, to the tables of wirelayout.go that wire.go reads with:
// the scanner writes each slot where Go reads it. go generate (this test
// with -update) writes the file anew.
func TestWireLayoutJS(t *testing.T) {
	golden.Check(t, "js/scanner/layout.js", []byte(layoutJS()))
}

// layoutJS writes the Layout namespace of the scanner from the tables.
func layoutJS() string {
	var b strings.Builder
	b.WriteString(`// layout.js: the wire layout of an entry: the position of each of its
// fields, and the bits of its flags. Written from the tables of
// marks/wirelayout.go, which marks/wire.go reads the entries with, by
// go generate ./marks: do not edit.
// A fragment of the marks scanner (see prelude.js): one namespace, its
// imports the const lines at its top, its exports the object it returns.

  const Layout = (() => {
    // flagsOf: the bits of an entry's flags slot.
    function flagsOf(e) {
      let f = 0;
`)
	for i, f := range wireFlags {
		fmt.Fprintf(&b, "      if (e.%s) f |= %d;\n", f.js, 1<<i)
	}
	for i, s := range wireStates {
		set := 1 << (len(wireFlags) + 2*i)
		fmt.Fprintf(&b, "      if (e.%s !== undefined) f |= e.%[1]s ? %d : %d;\n", s.js, set|set<<1, set)
	}
	b.WriteString(`      return f;
    }
    // trimmed drops the trailing slots that hold their default ("" or 0).
    function trimmed(a) {
      let n = a.length;
      while (n > 1 && (a[n - 1] === "" || a[n - 1] === 0)) n--;
      a.length = n;
      return a;
    }
    // packed is entry e in the wire form: a line or a group (id 0), or an
    // element.
    function packed(e) {
`)
	fmt.Fprintf(&b, "      if (!e.id) return trimmed([\n%s      ]);\n", slotList(lineSlots))
	fmt.Fprintf(&b, "      return trimmed([\n%s      ]);\n", slotList(elementSlots))
	b.WriteString(`    }
    return { packed };
  })();
`)
	return b.String()
}

// slotList is the slots' expressions, in order, one a line with its
// position, for an array literal.
func slotList(slots []slot) string {
	var b strings.Builder
	for i, s := range slots {
		fmt.Fprintf(&b, "        %s, // %d\n", s.js, i)
	}
	return b.String()
}

// TestDecodeWire reads entries of every kind from a wire form written by
// hand as layout.js writes them: a line with an inline element, an element
// with a mark, a select whose checked and expanded states are set, and a
// slot of a newer scanner, which is skipped.
func TestDecodeWire(t *testing.T) {
	raw := `["http://a.test/","A",2,"k.1",0,` +
		`[0,"text",1,0,"Hello Home",["Hello ",5]],` +
		`[5,"link","Home","a",2,17,1.5,2,30,10,"","","interaction",5,3,"http://a.test/home"],` +
		`[6,"combobox","Pick","select",0,833,0,0,0,0,"","a","",0,0,"","",["A","B"],2,[]],` +
		`[7,"button","Go","button",0,1,0,0,0,0,"","","",0,0,"","",0,0,0,"a newer slot"]]`
	no, yes := false, true
	want := scanJSON{
		Scan: Scan{URL: "http://a.test/", Title: "A", Memo: "k.1", Elements: []Element{
			{Role: "text", Depth: 1, Text: "Hello Home", Parts: []Part{{Text: "Hello "}, {ID: 5}}},
			{ID: 5, Role: "link", Name: "Home", Tag: "a", Depth: 2, Actionable: true, Inline: true,
				Box: Rect{X: 1.5, Y: 2, Width: 30, Height: 10}, Marked: &ElementMark{Kind: "interaction", Marked: 5},
				Form: 3, Href: "http://a.test/home"},
			{ID: 6, Role: "combobox", Name: "Pick", Tag: "select", Actionable: true, Checked: &no, Expanded: &yes,
				Value: "a", Options: []string{"A", "B"}, MoreOptions: 2, Selected: []int{}},
			{ID: 7, Role: "button", Name: "Go", Tag: "button", Actionable: true},
		}},
		PendingHosts: 2,
	}
	got, err := decodeWire(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decodeWire (-want +got):\n%s", diff)
	}
	if _, err := decodeWire(`["http://a.test/","A",0,"",0,[5,"link"`, nil); err == nil {
		t.Error("decodeWire of a cut scan: no error")
	}
}
