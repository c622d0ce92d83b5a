package gate

import (
	"strconv"
	"strings"

	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// elemKey names an element in one document: its frame and the scanner's
// local id there.
type elemKey struct {
	frame string
	id    int
}

// target is what a ref resolves to.
type target struct {
	elemKey
	ref      string
	frameURL string        // the frame's URL when the ref was assigned
	kind     spec.MarkKind // the kind of the mark covering it, if any, at the last snapshot
	name     string        // its accessible name at the last snapshot (Company content)
	box      *marks.Rect   // its box at the last snapshot, in the top frame only (for the User's live view)
}

// refTable hands out element refs ("e1", "e2", ...) and remembers which
// epoch they belong to. Numbers only grow, so a ref names one element for
// the life of the table: refs of an older epoch are stale, never reused.
// The zero value is not usable; see newRefTable. Not safe for concurrent
// use (the gate serializes access).
type refTable struct {
	epoch uint64
	next  int // the last number handed out
	first int // the first number of the current epoch
	byRef map[string]*target
	byKey map[elemKey]*target
}

func newRefTable() *refTable {
	return &refTable{first: 1, byRef: map[string]*target{}, byKey: map[elemKey]*target{}}
}

// bump starts a new epoch: every ref handed out so far becomes stale.
func (t *refTable) bump() {
	t.epoch++
	t.first = t.next + 1
	clear(t.byRef)
	clear(t.byKey)
}

// assign returns the ref of the element in the current epoch, handing out
// a new one the first time it is seen.
func (t *refTable) assign(frame string, id int, frameURL string) *target {
	k := elemKey{frame: frame, id: id}
	if e, ok := t.byKey[k]; ok {
		return e
	}
	t.next++
	e := &target{elemKey: k, ref: "e" + strconv.Itoa(t.next), frameURL: frameURL}
	t.byKey[k] = e
	t.byRef[e.ref] = e
	return e
}

// refOf returns the ref already assigned to an element, or "".
func (t *refTable) refOf(frame string, id int) string {
	if e, ok := t.byKey[elemKey{frame: frame, id: id}]; ok {
		return e.ref
	}
	return ""
}

// lookup resolves ref in the current epoch. A string that is not a ref
// gives [spec.ReasonBadArgument]; refs of an older epoch give
// [spec.ReasonStaleRef]; any other unknown ref gives [spec.ReasonNoSuchRef].
func (t *refTable) lookup(ref string) (*target, spec.Reason) {
	n, ok := parseRef(ref)
	if !ok {
		return nil, spec.ReasonBadArgument
	}
	if e, ok := t.byRef[ref]; ok {
		return e, ""
	}
	if n < t.first {
		return nil, spec.ReasonStaleRef
	}
	return nil, spec.ReasonNoSuchRef
}

// parseRef reads "e<N>" with N >= 1 and no leading zeros; a number that
// does not fit an int is no ref (the gate never hands one out).
func parseRef(ref string) (int, bool) {
	num, ok := strings.CutPrefix(ref, "e")
	if !ok || num == "" || num[0] < '1' || num[0] > '9' {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, strconv.Itoa(n) == num
}

// quoteArg quotes a value a model sent, for a message: one line, at most
// 40 characters, so that a long or hostile argument is not echoed whole.
func quoteArg(s string) string {
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40]) + "…"
	}
	return strconv.QuoteToGraphic(s)
}
