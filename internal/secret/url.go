package secret

import (
	"net/url"
	"regexp"
	"strings"
)

// RedactURL returns raw without what may carry a credential, for a log
// line, an error or a status: the user info, the query and the fragment
// are dropped, and each path segment that is not a plain word (a
// browser's id, a UUID, base64, anything with a digit or an escape), or
// that follows a segment naming a credential ("token", "key", "session"),
// becomes [Redacted]. The scheme, the host and the path's words stay, so
// the reader still knows which endpoint it was:
// wss://pool.example/devtools/browser/[redacted]. A URL that does not
// parse gives [Redacted].
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return Redacted
	}
	var b strings.Builder
	if u.Scheme != "" {
		b.WriteString(u.Scheme + ":")
		if u.Opaque != "" {
			b.WriteString(Redacted)
			return b.String()
		}
		if u.Host != "" || strings.HasPrefix(raw[len(u.Scheme)+1:], "//") {
			b.WriteString("//" + u.Host)
		}
	}
	prev := ""
	for i, seg := range strings.Split(u.EscapedPath(), "/") {
		if i > 0 {
			b.WriteByte('/')
		}
		if seg == "" || plainWord(seg) && !credentialWord(prev) {
			b.WriteString(seg)
		} else {
			b.WriteString(Redacted)
		}
		prev = seg
	}
	return b.String()
}

var (
	// word is a path segment that reads as a word: letters and a few
	// joiners, no digit, no escape, short.
	word = regexp.MustCompile(`^[A-Za-z][A-Za-z_.-]{0,23}$`)
	// version is an API version segment (v1, v2).
	version = regexp.MustCompile(`^v[0-9]{1,3}$`)
)

// plainWord reports whether a path segment is a word (or a version), not
// something random: a word has at most two capitals (camelCase).
func plainWord(seg string) bool {
	if version.MatchString(seg) {
		return true
	}
	if !word.MatchString(seg) {
		return false
	}
	upper := 0
	for _, c := range seg {
		if 'A' <= c && c <= 'Z' {
			upper++
		}
	}
	return upper <= 2
}

// credentialWord reports whether a path segment names a credential, so
// that the next one is one.
func credentialWord(seg string) bool {
	s := strings.ToLower(strings.NewReplacer("-", "", "_", "", ".", "").Replace(seg))
	switch s {
	case "token", "tokens", "key", "keys", "apikey", "accesstoken", "access", "secret", "secrets",
		"auth", "password", "passwd", "pass", "pwd", "pw", "session", "sessions", "ticket",
		"credential", "credentials", "jwt", "sig", "signature", "bearer":
		return true
	}
	return false
}

var (
	// urlInText finds the URLs a line of text may carry.
	urlInText = regexp.MustCompile(`(?i)\b(?:wss?|https?)://[^\s"'<>]+`)
	// bearerInText finds a bearer credential ("Bearer abc"), not a
	// description of one ("Bearer $POPPY_MCP_TOKEN").
	bearerInText = regexp.MustCompile(`(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]+`)
)

// RedactText returns a line of text with every http(s) and ws(s) URL in
// it redacted ([RedactURL]) and every bearer credential replaced by
// [Redacted]; the words around stay as they were.
func RedactText(s string) string {
	s = urlInText.ReplaceAllStringFunc(s, func(u string) string {
		// The match runs on over the punctuation after a URL ("URL: cause").
		bare := strings.TrimRight(u, ":,;.)")
		return RedactURL(bare) + u[len(bare):]
	})
	return bearerInText.ReplaceAllString(s, "$1 "+Redacted)
}
