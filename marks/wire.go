package marks

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/poppy-browser/poppy-browser/spec"
)

// The scan crosses CDP in the scanner's wire form (js/scanner/wire.js):
// one JSON array [url, title, pendingHosts, memo key, same, entry...]
// (same is 1 when the entries are left out because the caller holds them,
// see [ScanAgain]), each entry an
// array of its fields by position with the defaults left off the end. On
// a page of thousands of controls it is about half the bytes of the same
// scan as objects, and read here token by token, without reflection.

// Flags of an entry in the wire form (F_* in wire.js).
const (
	wireActionable = 1 << iota
	wireUserField
	wireDisabled
	wireGroup
	wireInline
	wirePre
	wireChecked
	wireCheckedTrue
	wireExpanded
	wireExpandedTrue
)

// decodeWire reads a scan in the wire form.
func decodeWire(raw string) (scanJSON, error) {
	r := wireReader{d: jsontext.NewDecoder(strings.NewReader(raw))}
	var s scanJSON
	r.open()
	s.URL, s.Title, s.PendingHosts, s.Memo, s.Same = r.str(), r.str(), r.int(), r.str(), r.int() == 1
	// An entry is 40-80 bytes of the wire form: one allocation, not a
	// dozen doublings of a slice of large structs.
	s.Elements = make([]Element, 0, len(raw)/48)
	for r.more() {
		s.Elements = append(s.Elements, r.entry())
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

// entry reads one entry: see packed in wire.js for the positions.
func (r *wireReader) entry() Element {
	var (
		e      Element
		flags  int
		kind   string
		marked int
	)
	r.open()
	e.ID = r.int()
	for i := 1; r.more(); i++ {
		if e.ID == 0 {
			switch i {
			case 1:
				e.Role = r.str()
			case 2:
				e.Depth = r.int()
			case 3:
				flags = r.int()
			case 4:
				e.Text = r.str()
			case 5:
				r.parts(&e)
			case 6:
				e.Name = r.str()
			default:
				r.skip()
			}
			continue
		}
		switch i {
		case 1:
			e.Role = r.str()
		case 2:
			e.Name = r.str()
		case 3:
			e.Tag = r.str()
		case 4:
			e.Depth = r.int()
		case 5:
			flags = r.int()
		case 6:
			e.Box.X = r.num()
		case 7:
			e.Box.Y = r.num()
		case 8:
			e.Box.Width = r.num()
		case 9:
			e.Box.Height = r.num()
		case 10:
			e.Type = r.str()
		case 11:
			e.Value = r.str()
		case 12:
			kind = r.str()
		case 13:
			marked = r.int()
		case 14:
			e.Form = r.int()
		case 15:
			e.Href = r.str()
		case 16:
			e.Text = r.str()
		case 17:
			if r.list(func() { e.Options = append(e.Options, r.str()) }) && e.Options == nil {
				e.Options = []string{}
			}
		case 18:
			e.MoreOptions = r.int()
		case 19:
			if r.list(func() { e.Selected = append(e.Selected, r.int()) }) && e.Selected == nil {
				e.Selected = []int{}
			}
		default:
			r.skip()
		}
	}
	r.close()
	e.Actionable = flags&wireActionable != 0
	e.UserField = flags&wireUserField != 0
	e.Disabled = flags&wireDisabled != 0
	e.Group = flags&wireGroup != 0
	e.Inline = flags&wireInline != 0
	e.Pre = flags&wirePre != 0
	if flags&wireChecked != 0 {
		v := flags&wireCheckedTrue != 0
		e.Checked = &v
	}
	if flags&wireExpanded != 0 {
		v := flags&wireExpandedTrue != 0
		e.Expanded = &v
	}
	if kind != "" {
		e.Marked = &ElementMark{Kind: spec.MarkKind(kind), Marked: marked}
	}
	return e
}

// parts reads a line's parts: strings, and the ids of inline elements.
func (r *wireReader) parts(e *Element) {
	ok := r.list(func() {
		if r.d.PeekKind() == '"' {
			e.Parts = append(e.Parts, Part{Text: r.str()})
		} else {
			e.Parts = append(e.Parts, Part{ID: r.int()})
		}
	})
	if ok && e.Parts == nil {
		e.Parts = []Part{}
	}
}

// skip passes over a field this reader does not know (a newer scanner's).
func (r *wireReader) skip() {
	if r.err == nil {
		r.err = r.d.SkipValue()
	}
}
