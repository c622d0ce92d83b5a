package gate

import (
	"strconv"
	"testing"
)

// FuzzParseRef: any string a model sends parses without panicking, and
// only the spelling the gate hands out ("e" and a number from 1, no
// leading zero) is a ref.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"", "e", "e1", "e12", "x12", "e-1", "e01", "e+1", "e 1", "e99999999999999999999", "e1\x00", "é1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		n, ok := parseRef(ref)
		if ok != (n >= 1 && "e"+strconv.Itoa(n) == ref) {
			t.Fatalf("parseRef(%q) = %d, %v", ref, n, ok)
		}
		if len(quoteArg(ref)) > 10*41+2 {
			t.Fatalf("quoteArg(%q) is %d bytes", ref, len(quoteArg(ref)))
		}
	})
}
