package marks

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// The scan crosses CDP in the scanner's wire form (js/scanner/wire.js):
// one JSON array [url, title, pendingHosts, memo key, same, entry...]
// (same is 1 when the entries are left out because the caller holds them,
// see [ScanAgain]; 2 when a run of the caller's entries stands for the
// entries the scan took over from it, as two numbers: its start and end in
// the caller's), each entry an array of its fields by position with the
// defaults left off the end, as the tables of wirelayout.go say. On a page
// of thousands of controls it is about half the bytes of the same scan as
// objects, and read here token by token, without reflection.

// decodeWire reads a scan in the wire form; base is the caller's scan
// whose entries its runs stand for (nil for none).
func decodeWire(raw string, base []Element) (scanJSON, error) {
	r := wireReader{d: jsontext.NewDecoder(strings.NewReader(raw))}
	var s scanJSON
	r.open()
	var same int
	s.URL, s.Title, s.PendingHosts, s.Memo, same = r.str(), r.str(), r.int(), r.str(), r.int()
	s.Same = same == 1
	// An entry is 40-80 bytes of the wire form, and a scan that takes
	// runs of the caller's is about as long as the caller's: one
	// allocation, not a dozen doublings of a slice of large structs.
	size := len(raw) / 48
	if same == 2 {
		size += len(base)
	}
	s.Elements = make([]Element, 0, size)
	for r.more() {
		if r.d.PeekKind() != '0' {
			s.Elements = append(s.Elements, r.entry())
			continue
		}
		// A run of the caller's entries.
		start, end := r.int(), r.int()
		if same != 2 || start < 0 || start > end || end > len(base) {
			r.err = fmt.Errorf("a run [%d:%d] of a scan of %d entries", start, end, len(base))
			break
		}
		s.Elements = append(s.Elements, base[start:end]...)
	}
	r.close()
	if r.err != nil {
		return scanJSON{}, fmt.Errorf("decoding the scan: %w", r.err)
	}
	return s, nil
}

// wireReader reads the wire form; its first error stops it (later reads
// return zero values) and stays in err.
type wireReader struct {
	d   *jsontext.Decoder
	err error
	cur wireEntry // the entry being read, kept here so that it is not allocated for each
}

func (r *wireReader) token(kind jsontext.Kind) jsontext.Token {
	if r.err != nil {
		return jsontext.Null
	}
	t, err := r.d.ReadToken()
	if err == nil && t.Kind() != kind {
		err = fmt.Errorf("at offset %d: %v where %v was due", r.d.InputOffset(), t.Kind(), kind)
	}
	if err != nil {
		r.err = err
		return jsontext.Null
	}
	return t
}

func (r *wireReader) open()  { r.token('[') }
func (r *wireReader) close() { r.token(']') }

// more reports whether the array being read has another value.
func (r *wireReader) more() bool {
	if r.err != nil {
		return false
	}
	switch r.d.PeekKind() {
	case ']':
		return false
	case 0:
		r.err = errors.New("the scan ends early")
		return false
	}
	return true
}

func (r *wireReader) str() string {
	if t := r.token('"'); r.err == nil {
		return t.String()
	}
	return ""
}

func (r *wireReader) num() float64 {
	if t := r.token('0'); r.err == nil {
		return t.Float()
	}
	return 0
}

func (r *wireReader) int() int { return int(r.num()) }

// list reads an array with each, or a 0 that stands for no array (nil).
func (r *wireReader) list(each func()) bool {
	if r.err != nil || r.d.PeekKind() != '[' {
		r.num()
		return false
	}
	r.open()
	for r.more() {
		each()
	}
	r.close()
	return true
}

// entry reads one entry: its id, then its slots as the table for its
// kind of entry (wirelayout.go) says.
func (r *wireReader) entry() Element {
	r.cur = wireEntry{}
	w := &r.cur
	r.open()
	w.ID = r.int()
	slots := elementSlots
	if w.ID == 0 {
		slots = lineSlots
	}
	for i := 1; r.more(); i++ {
		if i < len(slots) {
			slots[i].read(r, w)
		} else {
			r.skip()
		}
	}
	r.close()
	return w.finish()
}

// parts reads a line's parts: strings, and the ids of inline elements.
func (r *wireReader) parts(w *wireEntry) {
	ok := r.list(func() {
		if r.d.PeekKind() == '"' {
			w.Parts = append(w.Parts, Part{Text: r.str()})
		} else {
			w.Parts = append(w.Parts, Part{ID: r.int()})
		}
	})
	if ok && w.Parts == nil {
		w.Parts = []Part{}
	}
}

// options reads a select's option labels.
func (r *wireReader) options(w *wireEntry) {
	if r.list(func() { w.Options = append(w.Options, r.str()) }) && w.Options == nil {
		w.Options = []string{}
	}
}

// selected reads the indexes of a select's selected options.
func (r *wireReader) selected(w *wireEntry) {
	if r.list(func() { w.Selected = append(w.Selected, r.int()) }) && w.Selected == nil {
		w.Selected = []int{}
	}
}

// skip passes over a field this reader does not know (a newer scanner's).
func (r *wireReader) skip() {
	if r.err == nil {
		r.err = r.d.SkipValue()
	}
}
