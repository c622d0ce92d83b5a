package control

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxUserMessage is the most runes of the User's message to the agent that
// are kept; the rest is cut.
const MaxUserMessage = 500

// escapeSequence matches terminal escape sequences (CSI, OSC and two-byte
// ones), removed whole so that no fragment of one reaches a terminal or the
// model.
var escapeSequence = regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?`)

// CleanUserMessage is the User's message as the agent and the audit log
// get it: escape sequences and control characters removed (line breaks
// and tabs become spaces), format characters such as bidi overrides
// removed, spaces trimmed, and at most [MaxUserMessage] runes.
func CleanUserMessage(s string) string {
	if len(s) > 8*MaxUserMessage {
		s = s[:8*MaxUserMessage] // no need to read further than any cap
	}
	s = strings.ToValidUTF8(s, "")
	s = escapeSequence.ReplaceAllString(s, "")
	var b strings.Builder
	n := 0
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			r = ' '
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			continue
		}
		if n == MaxUserMessage {
			break
		}
		b.WriteRune(r)
		n++
	}
	out := strings.TrimSpace(b.String())
	if !utf8.ValidString(out) {
		return ""
	}
	return out
}

// SetViewers records how many of the User's viewers (live views) are
// connected, for the agent's status. It publishes no event.
func (c *Control) SetViewers(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.st.Viewers = n
}
