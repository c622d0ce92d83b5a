package marks

import "slices"

// DecodeWire reads a scan's entries in the wire form, for the tests of
// package marks_test.
func DecodeWire(raw string) ([]Element, error) {
	s, err := decodeWire(raw, nil)
	return s.Elements, err
}

// ScannerFuncNames lists the functions of globalThis.poppyMarks that the
// package offers calls of (exports_gen.go), sorted.
func ScannerFuncNames() []string {
	names := make([]string, 0, len(scannerFuncs))
	for _, fn := range scannerFuncs {
		names = append(names, fn.name)
	}
	slices.Sort(names)
	return names
}

// CallImplicitRule calls the scanner's implicitRule(controls, trigger),
// for its table test.
var CallImplicitRule = jsImplicitRule.call()
