package marks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/spec"
)

// World is the isolated world the scanner runs in, in every frame.
const World = "poppy-marks"

// Script is the scanner, to install once in every frame before any call of
// this package: b.SetScript(ctx, "marks", marks.Script()). Calls into a frame
// whose world has no scanner wait for it until ctx ends.
func Script() browser.Script { return browser.Script{World: World, Source: scannerJS} }

// ErrStale matches (with errors.Is) the error of a helper given the local id
// of an element that is gone from its document.
var ErrStale = errors.New("element is gone")

// Rect is a box in CSS pixels of the frame's viewport.
type Rect struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Mark is one mark covering what an action would touch.
type Mark struct {
	Kind    spec.MarkKind `json:"kind"`
	Marked  int           `json:"marked"`  // local id of the element bearing the mark
	Touches int           `json:"touches"` // local id of the element the action would change, activate or submit
}

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

// Action is what an agent action would do, for [Check].
type Action struct {
	Kind ActionKind
	// ID is the local id of the target; 0 means none: a key press goes to
	// the focused element (document.activeElement, through open shadow roots).
	ID int
	// Key is the Playwright key name for "key" ("Enter", " ", "Tab",
	// "Shift+Tab" ...); for "type" it is "Enter" when the text is submitted.
	Key string
	// Arm arms the frame's in-page guard when the verdict allows the
	// action: until [Disarm], a click, key press, text input or submit that
	// reaches a covered element in the frame is stopped before the page
	// sees it. The gate arms it just before it dispatches agent input.
	Arm bool
}

// ActionKind is what an [Action] does to its target.
type ActionKind string

// The kinds of action the scanner judges.
const (
	ActionClick  ActionKind = "click"
	ActionType   ActionKind = "type"
	ActionSelect ActionKind = "select"
	ActionKey    ActionKind = "key"
	ActionScroll ActionKind = "scroll"
	ActionFocus  ActionKind = "focus"
	// ActionHover moves the pointer over the element: judged as a click,
	// since hover menus and tooltips act on the pointer.
	ActionHover ActionKind = "hover"
	// ActionWheel scrolls with the mouse wheel, without a target: judged
	// on the focused element, which a wheel changes when it is a number
	// field (Chromium steps a focused number input under the pointer).
	// Which element the pointer is over is not asked: every frame's
	// focused number field counts.
	ActionWheel ActionKind = "wheel"
)

// Verdict is what an action would touch and which marks cover it, read
// from the page at the moment of [Check].
type Verdict struct {
	Stale bool // the element is gone or replaced (not connected): stale_ref
	// Marks are every mark covering what the action would touch,
	// interaction marks first; non-empty means refuse (user_step).
	Marks []Mark
	// Obscured is set for a click when another element covers the
	// target's click point.
	Obscured bool
	// Point is the click point (X, Y; Width = Height = 0) in the frame's
	// viewport after scrolling the target into view, for clicks; nil when
	// the target shows no box in the viewport.
	Point *Rect
	// Focused says whether the target is the focused element now.
	Focused bool
}

// verdictJSON mirrors the scanner's check result.
type verdictJSON struct {
	Stale    bool   `json:"stale"`
	Marks    []Mark `json:"marks"`
	Obscured bool   `json:"obscured"`
	Point    *Rect  `json:"point"`
	Focused  bool   `json:"focused"`
	// Unseen: the focus is inside a shadow root the scanner has not
	// adopted (a closed root attached since the last scan).
	Unseen bool `json:"unseen"`
}

func (v verdictJSON) verdict() Verdict {
	return Verdict{Stale: v.Stale, Marks: v.Marks, Obscured: v.Obscured, Point: v.Point, Focused: v.Focused}
}

// actionJSON is the argument of the scanner's check.
type actionJSON struct {
	Kind ActionKind `json:"kind"`
	ID   int        `json:"id"`
	Key  string     `json:"key"`
	Arm  bool       `json:"arm"`
}

// Calls into the scanner; every value is an argument, never source text.
const (
	callScan     = `function(id, since) { return globalThis.poppyMarks.scanWire(id, since); }`
	callCheck    = `function(a) { return globalThis.poppyMarks.check(a); }`
	callDisarm   = `function() { return globalThis.poppyMarks.disarm(); }`
	callFocus    = `function(id) { try { return {focused: globalThis.poppyMarks.focus(id)}; } catch (e) { return {error: String(e.message)}; } }`
	callSelect   = `function(id, values) { try { return globalThis.poppyMarks.selectKeys(id, values) || {}; } catch (e) { return {error: String(e.message)}; } }`
	callSelected = `function(id) { try { return {values: globalThis.poppyMarks.selectedValues(id)}; } catch (e) { return {error: String(e.message)}; } }`
	callScroll   = `function(id, dx, dy) { try { globalThis.poppyMarks.scrollBy(id, dx, dy); return {}; } catch (e) { return {error: String(e.message)}; } }`
	callRef      = `function(sel) { return globalThis.poppyMarks.ref(sel); }`
	callMarks    = `function() { return globalThis.poppyMarks.marks(); }`
	callPending  = `function() { return globalThis.poppyMarks.pendingHosts(); }`
	callAdopt    = `function(host, root) { globalThis.poppyMarks.adopt(host, root); }`
)

// helperResult is what the helpers return: an error message from the page
// ("stale element" for a gone element) or their value.
type helperResult struct {
	Error   string   `json:"error"`
	Focused bool     `json:"focused"`
	Values  []string `json:"values"`
	Keys    []string `json:"keys"`
}

func (r helperResult) err(op string) error {
	switch r.Error {
	case "":
		return nil
	case "stale element":
		return fmt.Errorf("%s: %w", op, ErrStale)
	default:
		return fmt.Errorf("%s: %s", op, r.Error)
	}
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
// and the result is last with them; otherwise it is a new scan. A scan
// never decides an action ([Check] reads the page each time).
func ScanAgain(ctx context.Context, f browser.Frame, last Scan) (Scan, error) {
	return scanFrom(ctx, f, 0, &last)
}

func scanFrom(ctx context.Context, f browser.Frame, root int, last *Scan) (Scan, error) {
	since := ""
	if last != nil {
		since = last.Memo
	}
	s, err := scanOnce(ctx, f, root, since)
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
		s, err = scanOnce(ctx, f, root, "")
	}
	return s.Scan, err
}

// maxClosedDepth bounds the closed roots nested in closed roots that one
// scan reads; deeper ones are read by the next scans.
const maxClosedDepth = 8

// adoptClosedRoots hands the closed shadow roots of the hosts the scanner
// has pending to it and returns how many it handed over.
func adoptClosedRoots(ctx context.Context, f browser.Frame) (int, error) {
	n, err := f.AdoptClosedShadowRoots(ctx, World, callPending, callAdopt)
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
func scanOnce(ctx context.Context, f browser.Frame, root int, since string) (scanJSON, error) {
	var raw string
	if err := f.Call(ctx, World, callScan, &raw, root, since); err != nil {
		return scanJSON{}, fmt.Errorf("scanning frame: %w", err)
	}
	if raw == "null" { // the scanner found no element root
		return scanJSON{}, fmt.Errorf("scanning frame: %w", ErrStale)
	}
	s, err := decodeWire(raw)
	if err != nil {
		return scanJSON{}, fmt.Errorf("scanning frame: %w", err)
	}
	return s, nil
}

// Check reads, in one round trip, what action a would touch in the frame and
// which marks cover it now. For a click it also scrolls the target into view
// and hit-tests its click point. Every element a returned Mark names has a
// local id. A gone target is a Verdict with Stale set, not an error.
func Check(ctx context.Context, f browser.Frame, a Action) (Verdict, error) {
	switch a.Kind {
	case ActionClick, ActionType, ActionSelect, ActionKey, ActionScroll, ActionFocus, ActionHover, ActionWheel:
	default:
		return Verdict{}, fmt.Errorf("checking action: unknown kind %q", a.Kind)
	}
	var v verdictJSON
	if err := f.Call(ctx, World, callCheck, &v, actionJSON(a)); err != nil {
		return Verdict{}, fmt.Errorf("checking action: %w", err)
	}
	if v.Unseen {
		// The focus is in a closed root attached since the last scan.
		if _, err := adoptClosedRoots(ctx, f); err != nil {
			return Verdict{}, fmt.Errorf("checking action: %w", err)
		}
		v = verdictJSON{}
		if err := f.Call(ctx, World, callCheck, &v, actionJSON(a)); err != nil {
			return Verdict{}, fmt.Errorf("checking action: %w", err)
		}
	}
	return v.verdict(), nil
}

// Caught is what the in-page guard stopped: an event of an agent action
// that reached an element a mark covers.
type Caught struct {
	Event string `json:"event"` // "click", "keydown", "beforeinput", "submit" ...
	// Marks cover what the event would have changed, activated or
	// submitted, interaction marks first.
	Marks []Mark `json:"marks"`
}

// Disarmed is what [Disarm] found.
type Disarmed struct {
	Caught *Caught `json:"caught"` // what the guard stopped, or nil
	Title  string  `json:"title"`  // the frame's document title, read in the same call
}

// Disarm disarms the frame's guard (see [Action.Arm]) and returns what it
// stopped while armed, with the document's title.
func Disarm(ctx context.Context, f browser.Frame) (Disarmed, error) {
	var d Disarmed
	if err := f.Call(ctx, World, callDisarm, &d); err != nil {
		return Disarmed{}, fmt.Errorf("disarming the guard: %w", err)
	}
	return d, nil
}

// Focus focuses the element; it fails with [ErrStale] for a gone element and
// when the element does not take focus.
func Focus(ctx context.Context, f browser.Frame, id int) error {
	var r helperResult
	if err := f.Call(ctx, World, callFocus, &r, id); err != nil {
		return fmt.Errorf("focusing element: %w", err)
	}
	if err := r.err("focusing element"); err != nil {
		return err
	}
	if !r.Focused {
		return errors.New("focusing element: it did not take focus")
	}
	return nil
}

// Selection is how to select options of a native <select> as a person at
// the keyboard does: with the select focused, press Keys in order (names
// as the browser's Press takes them); Values are the option values
// selected afterwards.
type Selection struct {
	Keys   []string
	Values []string
}

// SelectKeys works out, changing nothing, the key presses that select the
// options of a native <select> whose value or visible label is one of
// values (the first match unless it is multiple): arrows, Home and End,
// and in a multiple select Control with an arrow and Control+Space. The
// caller focuses the select ([Focus]) and presses them, so the page sees
// the events a person's select fires. It fails when no option matches or
// every match is disabled; Keys is empty when they are selected already.
func SelectKeys(ctx context.Context, f browser.Frame, id int, values []string) (Selection, error) {
	var r helperResult
	if values == nil {
		values = []string{}
	}
	if err := f.Call(ctx, World, callSelect, &r, id, values); err != nil {
		return Selection{}, fmt.Errorf("selecting options: %w", err)
	}
	if err := r.err("selecting options"); err != nil {
		return Selection{}, err
	}
	if len(r.Values) == 0 {
		return Selection{}, errors.New("selecting options: no option matches")
	}
	return Selection{Keys: r.Keys, Values: r.Values}, nil
}

// SelectedValues reads the values of the selected options of a native
// <select>.
func SelectedValues(ctx context.Context, f browser.Frame, id int) ([]string, error) {
	var r helperResult
	if err := f.Call(ctx, World, callSelected, &r, id); err != nil {
		return nil, fmt.Errorf("reading the selection: %w", err)
	}
	if err := r.err("reading the selection"); err != nil {
		return nil, err
	}
	return r.Values, nil
}

// ScrollBy scrolls the element's nearest scrollable container (the window
// when there is none, or when id is 0) by dx, dy CSS pixels.
func ScrollBy(ctx context.Context, f browser.Frame, id int, dx, dy float64) error {
	var r helperResult
	if err := f.Call(ctx, World, callScroll, &r, id, dx, dy); err != nil {
		return fmt.Errorf("scrolling: %w", err)
	}
	return r.err("scrolling")
}

// IDOf assigns a local id to the first element of the frame's document
// matching the CSS selector (open shadow trees are not searched), or returns
// 0 when none matches. It is for tests and fixtures; agents use scanned ids.
func IDOf(ctx context.Context, f browser.Frame, selector string) (int, error) {
	var id int
	if err := f.Call(ctx, World, callRef, &id, selector); err != nil {
		return 0, fmt.Errorf("finding element: %w", err)
	}
	return id, nil
}

// Marked is one element bearing a mark, as [Read] lists it.
type Marked struct {
	// Path locates the element: CSS child steps from the root, with " >>> "
	// entering an open shadow root.
	Path  string        `json:"path"`
	Value string        `json:"value"` // the attribute's value as written
	Kind  spec.MarkKind `json:"kind"`  // what the value counts as on this element
}

// Read lists every element of the frame's document that bears a mark, in
// document order, open shadow trees included. It changes nothing.
func Read(ctx context.Context, f browser.Frame) ([]Marked, error) {
	var m []Marked
	if err := f.Call(ctx, World, callMarks, &m); err != nil {
		return nil, fmt.Errorf("reading marks: %w", err)
	}
	return m, nil
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
