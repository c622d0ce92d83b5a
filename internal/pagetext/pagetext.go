package pagetext

import (
	"net/url"
	"strings"
	"unicode"
)

// Line returns s as one line that is safe to print: invalid UTF-8 becomes
// U+FFFD, forbidden runes (see [Forbidden]) are removed, tabs and line or
// paragraph separators become spaces, runs of white space fold to one space,
// and the ends are trimmed. Line(Line(s)) == Line(s).
func Line(s string) string {
	if isPlain(s) {
		return s
	}
	// Plain but for spaces at its ends (a piece of a line of text): the
	// same without them.
	if t := strings.Trim(s, " "); len(t) < len(s) && isPlain(t) {
		return t
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false // a space is pending
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case isBreak(r) || unicode.IsSpace(r):
			space = b.Len() > 0
		case Forbidden(r):
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isPlain reports whether s is printable ASCII with single inner spaces,
// which Line returns unchanged (the common case, without allocating).
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ') {
			return false
		}
	}
	return true
}

// isBreak reports whether r separates lines or words in some reader: a tab,
// a line break, NEL, or the Unicode line and paragraph separators.
func isBreak(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// Forbidden reports whether r never appears in [Line]'s output: C0 and C1
// controls and DEL (ESC among them), the bidirectional formatting
// characters (embeddings and overrides U+202A–U+202E, isolates
// U+2066–U+2069, the marks U+200E, U+200F and U+061C), the line and
// paragraph separators, and the byte-order mark U+FEFF. Line turns the
// separating ones into a space and drops the rest.
func Forbidden(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	switch r {
	case 0x200e, 0x200f, 0x061c, 0x2028, 0x2029, 0xfeff:
		return true
	}
	return false
}

// ariaRoles are the WAI-ARIA 1.2 roles, with the few that the mark scanner
// gives elements without one (iframe, label, legend).
var ariaRoles = func() map[string]bool {
	m := map[string]bool{}
	for _, r := range strings.Fields(`alert alertdialog application article banner blockquote button
		caption cell checkbox code columnheader combobox comment complementary contentinfo
		definition deletion dialog directory document emphasis feed figure form generic grid
		gridcell group heading img image insertion link list listbox listitem log main mark
		marquee math menu menubar menuitem menuitemcheckbox menuitemradio meter navigation none
		note option paragraph presentation progressbar radio radiogroup region row rowgroup
		rowheader scrollbar search searchbox separator slider spinbutton status strong subscript
		superscript switch tab table tablist tabpanel term textbox time timer toolbar tooltip
		tree treegrid treeitem iframe label legend`) {
		m[r] = true
	}
	return m
}()

// Role returns role in lower case when it is a known ARIA role, and
// "generic" for anything else (an empty role included).
func Role(role string) string {
	r := strings.ToLower(strings.TrimSpace(role))
	if len(r) <= 32 && ariaRoles[r] {
		return r
	}
	return "generic"
}

// URL returns a printable form of a URL: an http(s) or ws(s) URL as one
// sanitized line; any other URL only as a summary that carries none of its
// text: "a frame of this page" (about:srcdoc), "about:blank", "a data: URL",
// "a blob: URL", "a javascript: URL", "a <scheme>: URL", or "an unreadable
// URL".
func URL(raw string) string {
	if _, ok := WebHost(raw); ok {
		return Line(raw)
	}
	return summary(raw)
}

// Host returns the host of an http(s) or ws(s) URL, in lower case, and for
// any other URL the summary [URL] gives.
func Host(raw string) string {
	if h, ok := WebHost(raw); ok {
		return h
	}
	return summary(raw)
}

// WebHost returns the host of an http(s) or ws(s) URL with a plain host
// name or address, in lower case; ok is false for any other URL.
func WebHost(raw string) (host string, ok bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	return WebHostOf(u)
}

// WebHostOf is [WebHost] of a URL already parsed.
func WebHostOf(u *url.URL) (host string, ok bool) {
	if u.Opaque != "" {
		return "", false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "ws", "wss":
	default:
		return "", false
	}
	h := strings.ToLower(u.Hostname())
	if h == "" || strings.ContainsFunc(h, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == ':' || r == '_')
	}) {
		return "", false
	}
	return h, true
}

// summary names a URL that is not a web URL by its scheme only.
func summary(raw string) string {
	scheme, rest, ok := strings.Cut(raw, ":")
	scheme = strings.ToLower(scheme)
	if !ok || scheme == "" || len(scheme) > 16 || strings.ContainsFunc(scheme, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '.' || r == '-')
	}) {
		return "an unreadable URL"
	}
	if scheme == "about" {
		switch {
		case strings.HasPrefix(rest, "srcdoc"):
			return "a frame of this page"
		case rest == "blank" || strings.HasPrefix(rest, "blank#") || strings.HasPrefix(rest, "blank?"):
			return "about:blank"
		}
	}
	return "a " + scheme + ": URL"
}
