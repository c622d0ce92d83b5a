package gate

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// part is the lines of body from line from (1-based) that fit
// MaxSnapshotText (at least one), with a line before them saying where
// the earlier lines are and a line after them saying what is left out.
func part(body string, from int) string {
	if from < 1 {
		from = 1
	}
	if from == 1 && len(body) <= MaxSnapshotText {
		return body
	}
	lines := strings.SplitAfter(body, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	lines = splitLongLines(lines)
	n := len(lines)
	if from > n {
		return fmt.Sprintf("[the snapshot has %d lines; line %d is past its end: take browser_snapshot without from to read it from the start]\n", n, from)
	}
	var b strings.Builder
	b.Grow(min(len(body), MaxSnapshotText) + 512)
	if from > 1 {
		fmt.Fprintf(&b, "[lines 1 to %d are in the earlier part: take browser_snapshot without from to read them]\n", from-1)
		if h := runHead(lines, from-1); h != "" {
			b.WriteString(h)
		}
	}
	end := from - 1
	for size := 0; end < n && (end == from-1 || size+len(lines[end]) <= MaxSnapshotText); end++ {
		size += len(lines[end])
		b.WriteString(lines[end])
	}
	if end < n {
		left := 0
		for _, l := range lines[end:] {
			left += len(l)
		}
		fmt.Fprintf(&b, "[... lines %d to %d (%d KB) not shown: a snapshot shows %d KB at a time; take browser_snapshot with from=%d to read on, or with the ref of an element above to read it alone]\n",
			end+1, n, (left+1023)>>10, MaxSnapshotText>>10, end+1)
	}
	return b.String()
}

// runHead is, for a part that starts inside a run (an item line such as
// `    - "Button 12" e20`), the run's line again, marked "(continued)", so
// that its items keep their role; "" otherwise.
func runHead(lines []string, at int) string {
	item := strings.TrimLeft(lines[at], " ")
	if !strings.HasPrefix(item, `- "`) && !(strings.HasPrefix(item, "- e") && len(item) > 3 && item[3] >= '1' && item[3] <= '9') {
		return ""
	}
	depth := len(lines[at]) - len(item)
	for i := at - 1; i >= 0; i-- {
		l := strings.TrimLeft(lines[i], " ")
		if len(lines[i])-len(l) >= depth {
			continue
		}
		if head, ok := strings.CutSuffix(lines[i], ":\n"); ok {
			return head + " (continued):\n"
		}
		return ""
	}
	return ""
}

// maxPartLine is the longest line a part shows whole: a longer one (a page
// that is one paragraph, a text file without line breaks) is cut into
// lines of about this size, so that a part is never one line far over
// the budget or nearly empty before it.
const maxPartLine = MaxSnapshotText / 4

// splitLongLines cuts the lines longer than maxPartLine at a space (or
// anywhere in a run without one, never inside a UTF-8 character), each
// cut marked "…" at the end of one line and the start of the next.
func splitLongLines(lines []string) []string {
	long := false
	for _, l := range lines {
		long = long || len(l) > maxPartLine
	}
	if !long {
		return lines
	}
	out := make([]string, 0, len(lines)+8)
	for _, l := range lines {
		for len(l) > maxPartLine {
			cut := strings.LastIndexByte(l[:maxPartLine], ' ')
			if cut < maxPartLine/2 {
				cut = maxPartLine
				for cut > 0 && !utf8.RuneStart(l[cut]) {
					cut--
				}
			}
			out = append(out, l[:cut]+" …\n")
			l = "… " + strings.TrimLeft(l[cut:], " ")
		}
		out = append(out, l)
	}
	return out
}
