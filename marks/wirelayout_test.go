package marks

import (
	"fmt"
	"strings"
	"testing"

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
