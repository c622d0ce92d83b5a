package marks

// DecodeWire reads a scan's entries in the wire form, for the tests of
// package marks_test.
func DecodeWire(raw string) ([]Element, error) {
	s, err := decodeWire(raw, nil)
	return s.Elements, err
}
