package gate

import (
	"net/url"
	"strings"

	"github.com/poppy-browser/poppy-browser/internal/pagetext"
)

// A link's target in a snapshot is short and carries no value a URL may
// hide a token in:
//   - a link within the frame's own document shows its anchor alone
//     ("to #baggage"): the page is the one the model is reading; one with
//     an empty anchor ("#", a script's button on real pages) shows nothing,
//     since it leads nowhere (it showed the page's own path, which reads as
//     a navigation);
//   - a link to the frame's own host shows its path ("to /manage");
//     a link to another host shows host and path ("to partner.test/hotels");
//   - a query keeps its keys and drops every value ("?ref=…&last=…"), since
//     values may be tokens; a fragment is kept only when it is a plain
//     anchor name ("#baggage"), else it is "#…";
//   - a path longer than maxLinkPath characters keeps its first and last
//     segments around "…" ("/docs/…/page"), and a last segment still too
//     long is cut with "…";
//   - a link that is not http(s) (mailto:, javascript:, data:) shows
//     nothing: its name says what it does.
const (
	maxLinkPath    = 48
	maxLinkSegment = 32
	maxQueryKeys   = 4
)

// linkTarget is where a link leads, as the snapshot shows it after "to ".
func linkTarget(href, frameURL string) string {
	lb := newLinkBase(frameURL)
	return lb.target(href)
}

// linkBase is a frame's URL as its links are shown against it, read once
// for all the links of a snapshot's frame.
type linkBase struct {
	u        *url.URL // nil when the frame's URL does not parse
	host     string   // its web host, when web
	web      bool
	port     string
	pathOfU  string // its escaped path, "/" for none
	rawQuery string
}

func newLinkBase(frameURL string) linkBase {
	var lb linkBase
	lb.host, lb.web = pagetext.WebHost(frameURL)
	if u, err := url.Parse(frameURL); err == nil {
		lb.u, lb.port, lb.pathOfU, lb.rawQuery = u, u.Port(), docPath(u), u.RawQuery
	}
	return lb
}

// target is linkTarget(href, the frame's URL).
func (lb *linkBase) target(href string) string {
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	host, ok := pagetext.WebHostOf(u)
	if !ok {
		return ""
	}
	if _, fragment, ok := strings.Cut(href, "#"); ok && lb.sameDocument(u) {
		if fragment == "" {
			return ""
		}
		return pagetext.Line(anchor(u.Fragment))
	}
	var b strings.Builder
	if !lb.web || lb.host != host || lb.port != u.Port() {
		b.WriteString(host)
		if p := u.Port(); p != "" {
			b.WriteString(":" + p)
		}
	}
	b.WriteString(shortPath(u.EscapedPath()))
	if u.RawQuery != "" {
		b.WriteString(queryKeys(u.RawQuery))
	}
	if u.Fragment != "" {
		b.WriteString(anchor(u.Fragment))
	}
	return pagetext.Line(b.String())
}

// anchor is a fragment as a link shows it: a plain anchor name, else "#…".
func anchor(fragment string) string {
	if plainAnchor(fragment) {
		return "#" + fragment
	}
	return "#…"
}

// plainAnchor reports whether a fragment is a plain anchor name: a letter
// then at most 39 letters, digits, "_" or "-".
func plainAnchor(s string) bool {
	if len(s) == 0 || len(s) > 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '_' || c == '-')) {
			return false
		}
	}
	return true
}

// sameDocument reports whether u is the document at the frame's URL (the
// fragments aside).
func (lb *linkBase) sameDocument(u *url.URL) bool {
	f := lb.u
	return f != nil && strings.EqualFold(f.Scheme, u.Scheme) && strings.EqualFold(f.Host, u.Host) && lb.pathOfU == docPath(u) && lb.rawQuery == u.RawQuery
}

// docPath is a URL's escaped path, "/" for none.
func docPath(u *url.URL) string {
	if p := u.EscapedPath(); p != "" {
		return p
	}
	return "/"
}

// shortPath shortens a path predictably: see the list above.
func shortPath(p string) string {
	if p == "" {
		return "/"
	}
	if len(p) <= maxLinkPath {
		return p
	}
	segs := strings.Split(strings.Trim(p, "/"), "/")
	last := segs[len(segs)-1]
	if len(last) > maxLinkSegment {
		last = last[:maxLinkSegment-1] + "…"
	}
	if len(segs) == 1 {
		return "/" + last
	}
	first := segs[0]
	if len(first) > maxLinkSegment {
		first = first[:maxLinkSegment-1] + "…"
	}
	return "/" + first + "/…/" + last
}

// queryKeys is a query with its values dropped: "?ref=…&last=…", at most
// maxQueryKeys keys, then "&…".
func queryKeys(raw string) string {
	var b strings.Builder
	n := 0
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		if n == maxQueryKeys {
			b.WriteString("&…")
			break
		}
		key, _, hasValue := strings.Cut(part, "=")
		if k, err := url.QueryUnescape(key); err == nil && len(k) <= 24 && !strings.ContainsAny(k, " \t") {
			key = k
		} else {
			key = "…"
		}
		if n == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString(key)
		if hasValue {
			b.WriteString("=…")
		}
		n++
	}
	return b.String()
}

// saysTarget reports whether a link's name already says where it leads,
// so that " to ..." would add nothing: the name is the target as shown
// (to) or the whole address, give or take the scheme, "www." and a
// final slash, or it holds the whole address ("Read example.com/a/b").
func saysTarget(name, to, href string) bool {
	n := bareURL(name)
	if n == "" {
		return false
	}
	t, h := bareURL(to), bareURL(href)
	return n == t || n == h || (len(h) > 0 && strings.Contains(n, h) && strings.Contains(h, "/"))
}

// bareURL is s lower-cased, trimmed, without "http://", "https://",
// "www." and a final "/".
func bareURL(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://")
	s = strings.TrimPrefix(s, "www.")
	return strings.TrimSuffix(s, "/")
}
