package gate

import (
	"net/url"
	"regexp"
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

var plainAnchor = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,39}$`)

// linkTarget is where a link leads, as the snapshot shows it after "to ".
func linkTarget(href, frameURL string) string {
	host, ok := pagetext.WebHost(href)
	if !ok {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if _, fragment, ok := strings.Cut(href, "#"); ok && sameDocument(u, frameURL) {
		if fragment == "" {
			return ""
		}
		return pagetext.Line(anchor(u.Fragment))
	}
	var b strings.Builder
	if here, ok := pagetext.WebHost(frameURL); !ok || here != host || portOf(frameURL) != u.Port() {
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
	if plainAnchor.MatchString(fragment) {
		return "#" + fragment
	}
	return "#…"
}

// sameDocument reports whether u is the document at frameURL (the
// fragments aside).
func sameDocument(u *url.URL, frameURL string) bool {
	f, err := url.Parse(frameURL)
	if err != nil {
		return false
	}
	path := func(u *url.URL) string {
		if p := u.EscapedPath(); p != "" {
			return p
		}
		return "/"
	}
	return strings.EqualFold(f.Scheme, u.Scheme) && strings.EqualFold(f.Host, u.Host) && path(f) == path(u) && f.RawQuery == u.RawQuery
}

func portOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Port()
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
