package marks

import "github.com/poppy-browser/poppy-browser/spec"

//go:generate go test -run ^TestWireLayoutJS$ . -update

// The layout of an entry in the wire form, one table for both sides: the
// scanner writes each slot as js says (js/scanner/layout.js is written
// from these tables by TestWireLayoutJS; run go generate after a change),
// and [wireReader.entry] reads it with read. An entry is an array of its
// slots in table order, the trailing ones that hold their default ("" or
// 0) left off; a slot past the table (a newer scanner's) is skipped.

// A slot is one position of an entry: js is the value the scanner writes
// there, a JavaScript expression of its entry e, default included; read
// stores it in the entry being read.
type slot struct {
	js   string
	read func(r *wireReader, w *wireEntry)
}

// wireEntry is an entry being read: the element, and what finish makes of
// its flags and its mark.
type wireEntry struct {
	Element
	flags    int
	markKind string
	markedID int
}

// lineSlots: a line of text or a group, whose id is 0.
var lineSlots = []slot{
	{"0", nil}, // the id, which entry reads first: it chooses the table
	{"e.role", func(r *wireReader, w *wireEntry) { w.Role = r.str() }},
	{"e.depth", func(r *wireReader, w *wireEntry) { w.Depth = r.int() }},
	{"flagsOf(e)", func(r *wireReader, w *wireEntry) { w.flags = r.int() }},
	{`e.text || ""`, func(r *wireReader, w *wireEntry) { w.Text = r.str() }},
	{"e.parts || 0", (*wireReader).parts},
	{`e.name || ""`, func(r *wireReader, w *wireEntry) { w.Name = r.str() }},
}

// elementSlots: an element, whose id is not 0. A list that is absent is 0.
var elementSlots = []slot{
	{"e.id", nil}, // as in lineSlots
	{"e.role", func(r *wireReader, w *wireEntry) { w.Role = r.str() }},
	{"e.name", func(r *wireReader, w *wireEntry) { w.Name = r.str() }},
	{"e.tag", func(r *wireReader, w *wireEntry) { w.Tag = r.str() }},
	{"e.depth", func(r *wireReader, w *wireEntry) { w.Depth = r.int() }},
	{"flagsOf(e)", func(r *wireReader, w *wireEntry) { w.flags = r.int() }},
	{"e.box.x", func(r *wireReader, w *wireEntry) { w.Box.X = r.num() }},
	{"e.box.y", func(r *wireReader, w *wireEntry) { w.Box.Y = r.num() }},
	{"e.box.width", func(r *wireReader, w *wireEntry) { w.Box.Width = r.num() }},
	{"e.box.height", func(r *wireReader, w *wireEntry) { w.Box.Height = r.num() }},
	{`e.type || ""`, func(r *wireReader, w *wireEntry) { w.Type = r.str() }},
	{`e.value || ""`, func(r *wireReader, w *wireEntry) { w.Value = r.str() }},
	{`e.marked ? e.marked.kind : ""`, func(r *wireReader, w *wireEntry) { w.markKind = r.str() }},
	{"e.marked ? e.marked.marked : 0", func(r *wireReader, w *wireEntry) { w.markedID = r.int() }},
	{"e.form || 0", func(r *wireReader, w *wireEntry) { w.Form = r.int() }},
	{`e.href || ""`, func(r *wireReader, w *wireEntry) { w.Href = r.str() }},
	{`e.text || ""`, func(r *wireReader, w *wireEntry) { w.Text = r.str() }},
	{"e.options || 0", (*wireReader).options},
	{"e.moreOptions || 0", func(r *wireReader, w *wireEntry) { w.MoreOptions = r.int() }},
	{"e.selected || 0", (*wireReader).selected},
}

// wireFlags are the bits of an entry's flags slot, from the lowest: a
// true field of the scanner's entry (e.actionable ...) sets its bit.
var wireFlags = []struct {
	js    string
	field func(e *Element) *bool
}{
	{"actionable", func(e *Element) *bool { return &e.Actionable }},
	{"userField", func(e *Element) *bool { return &e.UserField }},
	{"disabled", func(e *Element) *bool { return &e.Disabled }},
	{"group", func(e *Element) *bool { return &e.Group }},
	{"inline", func(e *Element) *bool { return &e.Inline }},
	{"pre", func(e *Element) *bool { return &e.Pre }},
}

// wireStates are the fields that may be undefined, two bits each after
// wireFlags': the lower says the field is set, the higher that it is true.
var wireStates = []struct {
	js    string
	field func(e *Element) **bool
}{
	{"checked", func(e *Element) **bool { return &e.Checked }},
	{"expanded", func(e *Element) **bool { return &e.Expanded }},
}

// finish turns the slots that are not fields of [Element] into fields.
func (w *wireEntry) finish() Element {
	for i, f := range wireFlags {
		*f.field(&w.Element) = w.flags&(1<<i) != 0
	}
	for i, s := range wireStates {
		set := 1 << (len(wireFlags) + 2*i)
		if w.flags&set != 0 {
			v := w.flags&(set<<1) != 0
			*s.field(&w.Element) = &v
		}
	}
	if w.markKind != "" {
		w.Marked = &ElementMark{Kind: spec.MarkKind(w.markKind), Marked: w.markedID}
	}
	return w.Element
}
