package gate

import (
	"fmt"
	"strings"

	"github.com/poppy-browser/poppy-browser/internal/pagetext"
	"github.com/poppy-browser/poppy-browser/marks"
)

// line writes a line of text: "- text: ... the [link "Authority" e12]
// rode ...", "- h2: Title", a row's cells separated by " | ", and a
// preformatted block one line each after "- pre:".
func (r *renderer) line(e *marks.Element, indent string) {
	role := lineRole(e.Role)
	if e.Pre && len(e.Parts) == 0 {
		lines := strings.Split(strings.TrimRight(e.Text, "\n"), "\n")
		fmt.Fprintf(r.b, "%s- %s:\n", indent, role)
		for _, l := range lines {
			// Line trims; the page's own indentation is kept.
			lead := len(l) - len(strings.TrimLeft(l, " \t"))
			fmt.Fprintf(r.b, "%s| %s%s\n", indent, strings.Repeat(" ", min(lead, 40)), pageWords(l))
		}
		return
	}
	t := r.words[:0]
	if len(e.Parts) == 0 {
		t = append(t, pageWords(e.Text)...)
	} else {
		space := false // a space is due before the next piece
		for _, p := range e.Parts {
			if p.ID == 0 {
				s := pageWords(p.Text)
				lead := p.Text != "" && isSpace(p.Text[0])
				if s == "" {
					space = space || lead
					continue
				}
				if (space || lead) && len(t) > 0 {
					t = append(t, ' ')
				}
				t = append(t, s...)
				space = isSpace(p.Text[len(p.Text)-1])
				continue
			}
			in, ok := r.byID[p.ID]
			if !ok {
				continue
			}
			s, ok := r.element(in, true)
			if !ok {
				continue
			}
			if space && len(t) > 0 {
				t = append(t, ' ')
			}
			t = append(t, '[')
			t = append(t, s...)
			t = append(t, ']')
			space = false
		}
	}
	r.words = t
	if len(t) == 0 {
		return
	}
	r.b.WriteString(indent)
	r.b.WriteString("- ")
	r.b.WriteString(role)
	r.b.WriteString(": ")
	r.b.Write(t)
	r.b.WriteByte('\n')
}

// lineRole is the prefix of a line of text: the scanner's line roles
// ("text", "h2", "listitem", "row", "pre", ...) pass, any other word
// becomes "text".
func lineRole(role string) string {
	switch r := pagetext.Role(role); {
	case len(role) == 2 && role[0] == 'h' && role[1] >= '1' && role[1] <= '6', role == "text", role == "row", role == "pre":
		return role
	case r == "generic" || r == "paragraph":
		return "text"
	default:
		return r
	}
}

// pageWords is page text in a line: one safe line, with its "[" written
// "\[" so that no text of the page reads as an element and its ref
// ("[button "Pay" e3]" is the snapshot's own notation).
func pageWords(s string) string { return strings.ReplaceAll(pagetext.Line(s), "[", `\[`) }

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// element renders an element that has a ref: its own line ("- button
// "Pay" [e3] ...") or, inline in a line of text, the same without the
// dash and with the ref unbracketed ("link "Authority" e12").
func (r *renderer) element(e *marks.Element, inline bool) (string, bool) {
	p, ok := r.pieces(e)
	if !ok {
		return "", false
	}
	if !inline || p.text != "" {
		return p.line(), true
	}
	var b strings.Builder
	b.Grow(len(p.role) + len(p.name) + len(p.ref) + len(p.states) + len(p.note) + 4)
	b.WriteString(p.role)
	if p.name != "" {
		b.WriteByte(' ')
		b.WriteString(p.name)
	}
	b.WriteByte(' ')
	b.WriteString(p.ref)
	b.WriteString(p.states)
	if p.note != "" {
		b.WriteByte(' ')
		b.WriteString(p.note)
	}
	return b.String(), true
}

// elementPieces are the parts of an element's line: its role, its name
// quoted ("" when it shows none), its ref, its states (" value=..."
// " checked", " to /path"; each with its leading space) and its note
// ("(user step: ...)", "(in form ...)"; "" for none). text is the whole
// line of an element the agent cannot act on (an older scanner's).
type elementPieces struct {
	role, name, ref, states, note string
	text                          string
}

// pieces assigns the element its ref, records it in the element list and
// returns the parts of its line.
func (r *renderer) pieces(e *marks.Element) (elementPieces, bool) {
	name := e.Name
	if !e.Actionable { // a line of text from an older scanner: one per element
		text := e.Text
		if text == "" {
			text = name
		}
		if text == "" || e.UserField {
			return elementPieces{}, false
		}
		return elementPieces{text: fmt.Sprintf("- %s: %s", lineRole(e.Role), clip(text))}, true
	}
	t := r.refs.assign(r.f.ID, e.ID, r.f.URL)
	*r.elems = append(*r.elems, ElementInfo{Ref: t.ref, Role: pagetext.Role(e.Role), Name: clip(name), Tag: clip(strings.ToLower(e.Tag)), Type: clip(e.Type)})
	info := &(*r.elems)[len(*r.elems)-1]
	if !e.UserField {
		info.Value = clip(e.Value)
		info.Checked = e.Checked
	}
	p := elementPieces{role: info.Role, ref: t.ref}
	if e.Role == "" {
		p.role = info.Tag
	}
	// A marked element that is not a control shows its text in the lines
	// that follow: its name would repeat them.
	if name != "" && e.Text == "" {
		p.name = quote(name)
	}
	p.states = r.states(e, info)
	t.kind, t.name, t.box = "", info.Name, nil
	if r.f.ParentID == "" && e.Box.Width > 0 {
		b := e.Box
		t.box = &b
	}
	switch m := e.Marked; {
	case m != nil:
		t.kind = m.Kind
		marked := r.refs.assign(r.f.ID, m.Marked, r.f.URL).ref
		info.Marked = &ElementMark{Kind: m.Kind, Marked: marked}
		p.note = markNote(e, m, marked, r.byID)
	case e.Form != 0:
		// A field of a marked form that the agent may fill in.
		p.note = fmt.Sprintf("(in form %s, which the User submits: you may fill this in)", r.refs.assign(r.f.ID, e.Form, r.f.URL).ref)
	}
	return p, true
}

// states writes an element's value, options and states after its ref.
func (r *renderer) states(e *marks.Element, info *ElementInfo) string {
	if !e.UserField && info.Value == "" && (e.Checked == nil || !*e.Checked) && e.Expanded == nil && !e.Disabled && len(e.Options) == 0 && e.Href == "" {
		return "" // the most common case, without a builder
	}
	var line strings.Builder
	if e.UserField {
		line.WriteString(" (the User's field: value hidden)")
	} else {
		if info.Value != "" {
			line.WriteString(" value=" + quote(info.Value))
		}
		if e.Checked != nil && *e.Checked {
			line.WriteString(" checked") // unchecked is the default: left out
		}
	}
	if e.Expanded != nil {
		if *e.Expanded {
			line.WriteString(" expanded")
		} else {
			line.WriteString(" collapsed")
		}
	}
	if e.Disabled {
		line.WriteString(" disabled")
	}
	if len(e.Options) > 0 {
		line.WriteString(" options: ")
		selected := make(map[int]bool, len(e.Selected))
		for _, i := range e.Selected {
			selected[i] = true
		}
		for i, o := range e.Options {
			if i > 0 {
				line.WriteString(", ")
			}
			line.WriteString(quote(o))
			if selected[i] && !e.UserField {
				line.WriteString(" (selected)")
			}
		}
		if e.MoreOptions > 0 {
			fmt.Fprintf(&line, " and %d more", e.MoreOptions)
		}
	}
	if to := r.here.target(e.Href); e.Href != "" && to != "" && !saysTarget(e.Name, to, e.Href) {
		line.WriteString(" to " + to)
	}
	return line.String()
}
