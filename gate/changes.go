package gate

import (
	"fmt"
	"regexp"
	"strings"
)

// A look is the page as the model last read it in one epoch: the body of
// that snapshot (its lines after the page line and the legend). A later
// snapshot of the same epoch (the same document, tab and turn of control,
// so the same refs) may show only what changed since then: see [changes].
type look struct {
	epoch uint64
	body  string
}

// maxDiffCells bounds the table that matches the old blocks with the new
// (old times new, after the unchanged ones at either end): past it the
// blocks in between count as changed.
const maxDiffCells = 4 << 20

// block is a line of a snapshot's body that no line hangs from, compared
// with the last look with the lines it is under. A line that lines hang
// from (a landmark, a form, a list) is their place, shown with them when
// one of them changed: one changed item of a list of 200 shows that item
// under the list's line, not the list.
type block struct {
	key    string // where it is (its frame and places) and its lines
	lines  []int  // its lines, in order
	places []int  // the lines it is under (frame header, landmarks, containers), outermost first
	under  int    // the heading before it that it is under, -1 for none
}

// changes is the body of a snapshot that shows only what changed in body
// since the look at old: each changed block with the lines it is under
// (its frame, landmark or container, and its heading), then a line that
// counts the unchanged blocks and says how to read the whole page. ok is
// false when the changes are most of the page: it is then shown whole.
// only is the ref of the one element that changed when it is all that
// changed (one block, holding that ref alone, nothing gone), else "".
func changes(old, body string) (text, only string, ok bool) {
	oldLines, newLines := bodyLines(old), bodyLines(body)
	was, now := blocks(oldLines), blocks(newLines)
	same := match(was, now)
	kept := 0
	for _, s := range same {
		if s {
			kept++
		}
	}
	// A block replaced by another is shown, not counted gone; the refs of
	// the elements gone from the page are named, so that the model knows
	// which of those it read are left.
	gone := max(0, len(was)-len(now))
	goneRefs := refsGone(oldLines, newLines, was, same, now)
	var b strings.Builder
	if kept == len(now) && gone == 0 {
		fmt.Fprintf(&b, "[Nothing changed since your last look: %s, refs valid. %s]\n", count(kept), readAll)
		return b.String(), "", true
	}
	if kept == len(now)-1 && len(was) == len(now) && len(goneRefs) == 0 {
		only = onlyRef(newLines, now, same)
	}
	b.WriteString("What changed since your last look, under the lines it is in:\n")
	// The lines shown, in the page's order: a changed block's, and the
	// lines it is under.
	shown := make([]bool, len(newLines))
	for k, bl := range now {
		if same[k] {
			continue
		}
		for _, p := range bl.places {
			shown[p] = true
		}
		if bl.under >= 0 {
			shown[bl.under] = true
		}
		for _, l := range bl.lines {
			shown[l] = true
		}
	}
	lines := 0
	for i, s := range shown {
		if s {
			b.WriteString(newLines[i])
			b.WriteByte('\n')
			lines += len(newLines[i]) + 1
		}
	}
	fmt.Fprintf(&b, "[Unchanged: %s, refs valid.", count(kept))
	if gone > 0 {
		fmt.Fprintf(&b, " Gone: %s", count(gone))
		if len(goneRefs) > 0 {
			fmt.Fprintf(&b, ", elements %s", strings.Join(goneRefs, " "))
		}
		b.WriteByte('.')
	} else if len(goneRefs) > 0 {
		fmt.Fprintf(&b, " Gone: elements %s.", strings.Join(goneRefs, " "))
	}
	b.WriteString(" " + readAll + "]\n")
	// Most of the page is the page: it reads better whole.
	if b.Len() > MaxSnapshotText || b.Len() >= len(body) || 4*lines > 3*len(body) {
		return "", "", false
	}
	return b.String(), only, true
}

// onlyRef is the one ref in the lines of the one changed block, or "".
func onlyRef(lines []string, now []block, same []bool) string {
	refs := map[string]bool{}
	for k, bl := range now {
		if !same[k] {
			for _, l := range bl.lines {
				refsIn(lines[l], refs)
			}
		}
	}
	if len(refs) != 1 {
		return ""
	}
	for r := range refs {
		return r
	}
	return ""
}

// refPattern finds the refs in a snapshot's line: an element's own line
// ("- button "Pay" [e3]"), an item of a run ("  - "Pay" e3", "  - e3") and
// an element inside a line of text ("[link "Help" e12 ..."). Page text
// never holds an unescaped "[", and a run's item line starts as no line of
// text does.
var refPattern = regexp.MustCompile(`(?:(?:^|[^\\])\[(e[1-9][0-9]*)\]|^ *- (?:"(?:[^"\\]|\\.)*" )?(e[1-9][0-9]*)(?: |$)|(?:^|[^\\])\[[a-z]+(?: "(?:[^"\\]|\\.)*")? (e[1-9][0-9]*)[ \]])`)

// refsIn adds the refs of line to into.
func refsIn(line string, into map[string]bool) {
	for _, m := range refPattern.FindAllStringSubmatch(line, -1) {
		for _, r := range m[1:] {
			if r != "" {
				into[r] = true
			}
		}
	}
}

// refsGone is the refs of the old blocks not kept that no line of the new
// body shows, in the old body's order.
func refsGone(oldLines, newLines []string, was []block, same []bool, now []block) []string {
	kept := make(map[string]bool, len(now))
	for k, bl := range now {
		if same[k] {
			kept[bl.key] = true
		}
	}
	present := map[string]bool{}
	for _, l := range newLines {
		refsIn(l, present)
	}
	var out []string
	seen := map[string]bool{}
	for _, bl := range was {
		if kept[bl.key] {
			continue
		}
		for _, l := range bl.lines {
			for _, m := range refPattern.FindAllStringSubmatch(oldLines[l], -1) {
				for _, r := range m[1:] {
					if r != "" && !present[r] && !seen[r] {
						seen[r] = true
						out = append(out, r)
					}
				}
			}
		}
	}
	return out
}

// readAll says how to read the whole page.
const readAll = "browser_snapshot with since=0 reads the whole page."

// count says n blocks in words.
func count(n int) string {
	if n == 1 {
		return "1 block"
	}
	return fmt.Sprintf("%d blocks", n)
}

// bodyLines is a body's lines without their line ends.
func bodyLines(body string) []string {
	lines := strings.Split(body, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// level is how deep a line hangs: a frame's header line ("Page content
// from ...") is -1, a line of the frame's content its indentation in
// steps of two spaces, and a line of a preformatted block ("| ...") one
// deeper than the "- pre:" line it belongs to.
func level(line string) int {
	t := strings.TrimLeft(line, " ")
	d := (len(line) - len(t)) / 2
	switch {
	case strings.HasPrefix(t, "- "):
		return d
	case strings.HasPrefix(t, "|"):
		return d + 1
	case d == 0 && !strings.HasPrefix(t, "["):
		return -1 // a frame's header, or a line about a frame left out
	}
	return d
}

// isHeading says a line is a heading's ("- h2: Results").
func isHeading(line string) bool {
	t := strings.TrimLeft(line, " ")
	return len(t) > 5 && t[0] == '-' && t[2] == 'h' && t[3] >= '1' && t[3] <= '6' && t[4] == ':'
}

// blocks cuts a body's lines into blocks, in order.
func blocks(lines []string) []block {
	levels := make([]int, len(lines))
	for i, l := range lines {
		levels[i] = level(l)
	}
	// end[i] is the line after the lines hanging from line i.
	end := make([]int, len(lines))
	for i := len(lines) - 1; i >= 0; i-- {
		j := i + 1
		for j < len(lines) && levels[j] > levels[i] {
			j = end[j]
		}
		end[i] = j
	}
	var out []block
	var places []int
	heading := -1
	var walk func(from, to int)
	walk = func(from, to int) {
		for i := from; i < to; i = end[i] {
			n := end[i] - i
			if n > 1 {
				// A place: its own line is shown with what changed under it.
				// A heading inside it is no place for what follows it.
				outer := heading
				places = append(places, i)
				if levels[i] < 0 {
					heading = -1 // nor is another frame's
				}
				walk(i+1, end[i])
				places, heading = places[:len(places)-1], outer
				continue
			}
			var key strings.Builder
			for _, p := range places {
				key.WriteString(lines[p])
				key.WriteByte('\n')
			}
			key.WriteByte(0)
			bl := block{places: append([]int(nil), places...), under: -1}
			for l := i; l < end[i]; l++ {
				key.WriteString(lines[l])
				key.WriteByte('\n')
				bl.lines = append(bl.lines, l)
			}
			bl.key = key.String()
			if heading >= 0 && heading != i && levels[heading] <= levels[i] {
				bl.under = heading
			}
			if isHeading(lines[i]) {
				heading = i
			}
			out = append(out, bl)
		}
	}
	walk(0, len(lines))
	return out
}

// match says, for each new block, whether it is one of the old blocks
// kept in order (a longest common subsequence of their keys).
func match(was, now []block) []bool {
	same := make([]bool, len(now))
	lo := 0
	for lo < len(was) && lo < len(now) && was[lo].key == now[lo].key {
		same[lo] = true
		lo++
	}
	hiW, hiN := len(was), len(now)
	for hiW > lo && hiN > lo && was[hiW-1].key == now[hiN-1].key {
		hiW--
		hiN--
		same[hiN] = true
	}
	a, b := was[lo:hiW], now[lo:hiN]
	if len(a) == 0 || len(b) == 0 || len(a)*len(b) > maxDiffCells {
		return same
	}
	// lcs[i][j] is the longest common subsequence of a[i:] and b[j:].
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i].key == b[j].key {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i].key == b[j].key:
			same[lo+j] = true
			i++
			j++
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	return same
}
