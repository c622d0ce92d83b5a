package marks

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/spec"
)

// ElementMark is the strongest mark covering a scanned element.
type ElementMark struct {
	Kind   spec.MarkKind `json:"kind"`
	Marked int           `json:"marked"` // local id of the element bearing the mark
}

// Element is one entry of a frame's scan: an interactive element, an
// element bearing a mark (forms too, even hidden), or a line of content.
type Element struct {
	// ID is the element's local id, stable for its document while the
	// element lives. Ids are per frame document; a new document starts over.
	ID   int    `json:"id"`
	Role string `json:"role"` // explicit or implicit ARIA role
	Name string `json:"name"` // accessible name, at most 100 characters
	Tag  string `json:"tag"`  // lower-case local name
	// Actionable says the agent may act on the element, so a snapshot
	// gives it a ref: a control, a link, an ARIA widget, an editable root,
	// or an element bearing a mark. The rest (content lines, iframes) is
	// shown without one. The scanner decides; nothing else keeps a list.
	Actionable bool   `json:"actionable,omitempty"`
	Type       string `json:"type,omitempty"`
	// Value is the current value of a field. It is never filled for a field
	// covered by an interaction mark (UserField), nor for a password input.
	Value string `json:"value,omitempty"`
	// UserField says the value is the User's: an interaction mark covers
	// the field, and the agent may not see its value or checked state.
	UserField bool `json:"userField,omitempty"`
	// Checked is the state of a checkbox, radio or aria-checked widget;
	// nil when it has none or when UserField hides it.
	Checked  *bool `json:"checked,omitempty"`
	Disabled bool  `json:"disabled,omitempty"`
	// Marked is the strongest mark covering the element as a click would
	// meet it (interaction beats submission): an interaction mark on it,
	// an ancestor or its form owner; the form's mark for a submit button;
	// or the element's own mark. For the marked element itself Marked ==
	// ID. Fields a submission form may have filled in carry no Marked but
	// Form.
	Marked *ElementMark `json:"marked,omitempty"`
	// Form is the local id of the element's form owner when that form
	// bears a mark; 0 otherwise.
	Form int `json:"form,omitempty"`
	// Options are the labels of a native select's options (at most 100;
	// MoreOptions counts the rest), and Selected the indexes of the
	// selected ones (never for a UserField).
	Options     []string `json:"options,omitempty"`
	MoreOptions int      `json:"moreOptions,omitempty"`
	Selected    []int    `json:"selected,omitempty"`
	// Expanded is aria-expanded, or a details element's open state.
	Expanded *bool `json:"expanded,omitempty"`
	// Href is a link's absolute target.
	Href string `json:"href,omitempty"`
	// Group says the entry is the line of a landmark (banner, navigation,
	// main, ...) or a list, with its Role and Name: the lines inside it
	// follow, one step deeper. It has no ref.
	Group bool `json:"group,omitempty"`
	// Inline says the element is a part of a line of text (see Parts) and
	// has no line of its own.
	Inline bool `json:"inline,omitempty"`
	Box    Rect `json:"box"`   // bounding box in the frame's viewport
	Depth  int  `json:"depth"` // number of scanned ancestors, for indentation
	// Text is the text of a line (ID 0, Role "text", "h1".."h6",
	// "listitem", "row", "cell", "pre", ...): the text of a block in reading
	// order, whitespace collapsed (kept in a "pre" line), with the names of
	// the elements inline in it; never cut. For a marked element that is
	// not a control, the text of its own (at most 300 characters).
	Text string `json:"text,omitempty"`
	// Parts is a line's text as written with its inline elements: strings
	// and the local ids of elements whose Inline is set. Empty when no
	// element is inline in it.
	Parts []Part `json:"parts,omitempty"`
	// Pre says the line is preformatted: its newlines are the page's.
	Pre bool `json:"pre,omitempty"`
}

// Scan is what a frame's document shows the agent, in document order
// (open shadow trees in place of their hosts' children).
type Scan struct {
	URL      string    `json:"url"`
	Title    string    `json:"title"`
	Elements []Element `json:"elements"`
	// Memo names the page's memo of a scan of the whole document ("" for
	// none): [ScanAgain] passes it back so that an unchanged page need not
	// send the entries again. Elements is then shared between scans: it
	// is read, never written.
	Memo string `json:"-"`
}

// ScanFrame reads the frame's document in one round trip. It assigns local
// ids to what it returns and never includes the value of a field covered by
// an interaction mark.
//
// Closed shadow roots are out of the scanner's reach from JavaScript: when
// a scan meets elements that may host one it has not looked into (custom
// elements, and built-in hosts such as a div that show no light content of
// their own), ScanFrame has the browser hand their closed roots to the
// scanner over CDP ([browser.Frame.AdoptClosedShadowRoots]) and scans
// again; from then on the scan, the check, the hit test and the guard look
// into them.
func ScanFrame(ctx context.Context, f browser.Frame) (Scan, error) {
	return ScanFrom(ctx, f, 0)
}

// ScanFrom scans the subtree of the element with local id root (the whole
// document when root is 0), closed shadow roots included. A root no longer
// in its document is [ErrStale].
func ScanFrom(ctx context.Context, f browser.Frame, root int) (Scan, error) {
	return scanFrom(ctx, f, root, nil)
}

// ScanAgain is ScanFrom(ctx, f, 0) for a caller that holds last, the
// frame's previous scan. The scanner keeps its last scan of the document
// while nothing it read has changed: no mutation of the DOM, and the same
// rendering, boxes, values, checked and selected states, shadow roots and
// slots. When that is so for last, only the URL and the title cross CDP
// and the result is last with them; otherwise it is a new scan, for which
// the scanner scans again only the blocks under which the DOM changed or
// whose reads no longer hold, and takes the rest from its last scan (the
// result is byte for byte a whole scan's). A scan never decides an action
// ([Check] reads the page each time).
func ScanAgain(ctx context.Context, f browser.Frame, last Scan) (Scan, error) {
	return scanFrom(ctx, f, 0, &last)
}

func scanFrom(ctx context.Context, f browser.Frame, root int, last *Scan) (Scan, error) {
	since, base := "", []Element(nil)
	if last != nil {
		since, base = last.Memo, last.Elements
	}
	s, err := scanOnce(ctx, f, root, since, base)
	if err == nil && s.Same {
		if last == nil || last.Memo != s.Memo {
			return Scan{}, fmt.Errorf("scanning frame: the page answered for a scan it was not given")
		}
		return Scan{URL: s.URL, Title: s.Title, Elements: last.Elements, Memo: s.Memo}, nil
	}
	// A closed root inside a closed root is met by the scan after the
	// outer one is adopted: read level by level, a bounded number.
	for depth := 0; err == nil && s.PendingHosts > 0 && depth < maxClosedDepth; depth++ {
		n, aerr := adoptClosedRoots(ctx, f)
		if aerr != nil {
			return Scan{}, fmt.Errorf("scanning frame: %w", aerr)
		}
		if n == 0 {
			break
		}
		s, err = scanOnce(ctx, f, root, "", nil)
	}
	return s.Scan, err
}

// maxClosedDepth bounds the closed roots nested in closed roots that one
// scan reads; deeper ones are read by the next scans.
const maxClosedDepth = 8

// adoptClosedRoots hands the closed shadow roots of the hosts the scanner
// has pending to it and returns how many it handed over.
func adoptClosedRoots(ctx context.Context, f browser.Frame) (int, error) {
	n, err := f.AdoptClosedShadowRoots(ctx, World, jsPendingHosts.call(), jsAdopt.call())
	if err != nil {
		return 0, fmt.Errorf("reading closed shadow roots: %w", err)
	}
	return n, nil
}

// scanJSON is the scanner's scan result.
type scanJSON struct {
	Scan
	// PendingHosts counts the elements that may host a closed root the
	// scanner has not looked into.
	PendingHosts int `json:"pendingHosts"`
	// Same says the page left the entries out: they are those of the
	// scan whose Memo was passed.
	Same bool `json:"-"`
}

// scanOnce runs the scanner once. The scan comes back as one JSON string
// in the wire form (wire.go): CDP's own by-value serialization of
// thousands of small objects costs many times more.
//
// base is the scan of the memo since names: a scan that reused blocks of
// it sends runs of base's entries instead of them.
func scanOnce(ctx context.Context, f browser.Frame, root int, since string, base []Element) (scanJSON, error) {
	var raw string
	if err := callScanner(ctx, f, jsScanWire, &raw, root, since); err != nil {
		return scanJSON{}, fmt.Errorf("scanning frame: %w", err)
	}
	if raw == "null" { // the scanner found no element root
		return scanJSON{}, fmt.Errorf("scanning frame: %w", ErrStale)
	}
	s, err := decodeWire(raw, base)
	if err != nil {
		return scanJSON{}, fmt.Errorf("scanning frame: %w", err)
	}
	return s, nil
}

// Part is a piece of a line: text, or the local id of an element inline
// in it.
type Part struct {
	Text string
	ID   int
}

// MarshalJSON writes a string or a number, as the scanner does.
func (p Part) MarshalJSON() ([]byte, error) {
	if p.ID != 0 {
		return json.Marshal(p.ID)
	}
	return json.Marshal(p.Text)
}

// UnmarshalJSON reads a string or a number.
func (p *Part) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &p.Text)
	}
	return json.Unmarshal(b, &p.ID)
}
