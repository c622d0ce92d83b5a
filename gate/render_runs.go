package gate

import (
	"fmt"
	"strings"

	"github.com/poppy-browser/poppy-browser/internal/pagetext"
	"github.com/poppy-browser/poppy-browser/marks"
)

// minRun is the fewest siblings of one role shown as a run: one line for
// the role ("- buttons:") and a short line for each ("- "Pay" e3").
const minRun = 3

// runOf is the number of rows from rows[k] that may be shown as one run:
// elements with a ref, of one role, at one indentation, each without
// lines of its own hanging from it.
func runOf(els []marks.Element, rows []row, k int) int {
	first := &els[rows[k].i]
	if !runnable(first) {
		return 0
	}
	n := 0
	for j := k; j < len(rows); j++ {
		e := &els[rows[j].i]
		if rows[j].level != rows[k].level || !runnable(e) || e.Role != first.Role {
			break
		}
		if j+1 < len(rows) && rows[j+1].level > rows[j].level {
			break // lines hang from it: it keeps its own line
		}
		n++
	}
	return n
}

// runnable says an entry may be an item of a run: an element with a ref
// and a role of its own, whose line is the whole of it.
func runnable(e *marks.Element) bool {
	return e.ID != 0 && e.Actionable && !e.Group && e.Role != "" && e.Text == ""
}

// run writes rows of elements of one role: the stretches of at least
// minRun with the same note as one line for the role, with the note,
// and a short line for each item ("- "Button 12" e20 disabled"), the
// rest one line each. It returns false when the text passed
// maxRenderedText (r.cut is then set).
func (r *renderer) run(els []marks.Element, rows []row, indent string) bool {
	ps := make([]elementPieces, 0, len(rows))
	for _, w := range rows {
		p, _ := r.pieces(&els[w.i]) // runnable entries are actionable: always ok
		ps = append(ps, p)
	}
	if r.b.Len() > maxRenderedText {
		r.cut = len(els) - rows[0].i
		return false
	}
	r.write(ps, indent)
	return true
}

// write writes elements of one role: the stretches of at least minRun
// with the same note as a run (its line and the items), the rest one
// line each.
func (r *renderer) write(ps []elementPieces, indent string) {
	for a := 0; a < len(ps); {
		b := a + 1
		for b < len(ps) && ps[b].note == ps[a].note {
			b++
		}
		if b-a < minRun {
			for _, p := range ps[a:b] {
				r.b.WriteString(indent)
				p.writeLine(r.b)
				r.b.WriteByte('\n')
			}
			a = b
			continue
		}
		r.b.WriteString(indent + "- " + plural(ps[a].role))
		if ps[a].note != "" {
			r.b.WriteString(" " + ps[a].note)
		}
		r.b.WriteString(":\n")
		r.items(ps[a:b], indent)
		a = b
	}
}

// listRun writes a list without a name whose items are all one run
// with one note (a menu of links) as the run's line ("- list of links:")
// and the items under it, and returns the number of items; 0 when the
// list is not such a list (nothing is written).
func (r *renderer) listRun(els []marks.Element, rows []row, k int, indent string) int {
	g := &els[rows[k].i]
	if pagetext.Role(g.Role) != "list" || g.Name != "" || k+1 >= len(rows) || rows[k+1].level != rows[k].level+1 {
		return 0
	}
	n := runOf(els, rows, k+1)
	if n < minRun || k+1+n < len(rows) && rows[k+1+n].level > rows[k].level {
		return 0
	}
	// The notes are known once refs are given: give them (in the order a
	// plain rendering would) and fall back to it when they differ.
	ps := make([]elementPieces, 0, n)
	for _, w := range rows[k+1 : k+1+n] {
		p, _ := r.pieces(&els[w.i])
		ps = append(ps, p)
	}
	for _, p := range ps {
		if p.note != ps[0].note {
			fmt.Fprintf(r.b, "%s- list:\n", indent)
			r.write(ps, indent+"  ")
			return n
		}
	}
	r.b.WriteString(indent + "- list of " + plural(ps[0].role))
	if ps[0].note != "" {
		r.b.WriteString(" " + ps[0].note)
	}
	r.b.WriteString(":\n")
	r.items(ps, indent)
	return n
}

// items writes the short lines of a run's items, under a run's line
// indented by indent.
func (r *renderer) items(ps []elementPieces, indent string) {
	for _, p := range ps {
		r.b.WriteString(indent)
		r.b.WriteString("  - ")
		if p.name != "" {
			r.b.WriteString(p.name)
			r.b.WriteByte(' ')
		}
		r.b.WriteString(p.ref)
		r.b.WriteString(p.states)
		r.b.WriteByte('\n')
	}
}

// line is the element's own line, without its indentation.
func (p elementPieces) line() string {
	if p.text != "" {
		return p.text
	}
	var b strings.Builder
	b.Grow(len(p.role) + len(p.name) + len(p.ref) + len(p.states) + len(p.note) + 8)
	p.writeLine(&b)
	return b.String()
}

// writeLine writes line() to b.
func (p elementPieces) writeLine(b *strings.Builder) {
	if p.text != "" {
		b.WriteString(p.text)
		return
	}
	b.WriteString("- ")
	b.WriteString(p.role)
	if p.name != "" {
		b.WriteByte(' ')
		b.WriteString(p.name)
	}
	b.WriteString(" [")
	b.WriteString(p.ref)
	b.WriteByte(']')
	b.WriteString(p.states)
	if p.note != "" {
		b.WriteByte(' ')
		b.WriteString(p.note)
	}
}

// plural is the line of a run of elements of a role: "buttons",
// "checkboxes", "switches" (agent.ParsePage reads it back).
func plural(role string) string {
	for _, end := range []string{"s", "x", "ch", "sh"} {
		if strings.HasSuffix(role, end) {
			return role + "es"
		}
	}
	return role + "s"
}
