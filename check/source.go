package check

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/net/html"
)

// SourceRoot maps the pages under a URL prefix to the folder of the
// repository that serves them (--source-root URLPREFIX=DIR): the page
// https://staging.example/checkout under https://staging.example/=templates
// is the file checkout.html in templates when that file exists.
type SourceRoot struct {
	URLPrefix string
	Dir       string // a folder of the repository, relative to its root, with "/"
}

// ParseSourceRoot reads URLPREFIX=DIR. The prefix is an http or https
// URL; DIR is a relative path inside the repository (code scanning takes
// paths relative to the checkout, and no "..").
func ParseSourceRoot(s string) (SourceRoot, error) {
	prefix, dir, ok := strings.Cut(s, "=")
	if !ok || prefix == "" || dir == "" {
		return SourceRoot{}, fmt.Errorf("source root %q: want URLPREFIX=DIR", s)
	}
	u, err := url.Parse(prefix)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return SourceRoot{}, fmt.Errorf("source root %q: %q is not an http or https URL", s, prefix)
	}
	dir = filepath.ToSlash(dir)
	clean := path.Clean(dir)
	if path.IsAbs(clean) || filepath.IsAbs(dir) || clean == ".." || strings.HasPrefix(clean, "../") {
		return SourceRoot{}, fmt.Errorf("source root %q: %q must be a folder inside the repository, relative to its root", s, dir)
	}
	return SourceRoot{URLPrefix: prefix, Dir: clean}, nil
}

// artifactURI is where a document (a page or frame URL) is for code
// scanning: the file of the repository that serves it, when a source root
// maps it to one that exists; otherwise "host/path", without scheme, query
// or fragment (code scanning refuses an https URI, and a query may carry
// what is not for a report). Either way it is percent-encoded, a relative
// reference.
func (o SARIFOptions) artifactURI(doc string) string {
	if file, ok := o.sourceFile(doc); ok {
		return encodeURIPath(file)
	}
	u, err := url.Parse(doc)
	if err != nil || u.Host == "" {
		return encodeURIPath(strings.TrimPrefix(doc, "/"))
	}
	p := u.Path
	if p == "" {
		p = "/"
	}
	return encodeURIPath(u.Host + p)
}

// sourceFile is the repository file that serves doc, if a source root
// maps it to one that exists: the rest of the path after the prefix, as
// it is, with ".html", or its "index.html".
func (o SARIFOptions) sourceFile(doc string) (string, bool) {
	plain := withoutQuery(doc)
	for _, sr := range o.SourceRoots {
		rest, ok := strings.CutPrefix(plain, sr.URLPrefix)
		if !ok {
			continue
		}
		if !strings.HasSuffix(sr.URLPrefix, "/") && rest != "" && !strings.HasPrefix(rest, "/") {
			continue // https://a.test/shop does not cover https://a.test/shopping
		}
		rest, err := url.PathUnescape(strings.TrimPrefix(rest, "/"))
		if err != nil || strings.Contains(rest, "..") {
			continue
		}
		var candidates []string
		if rest == "" || strings.HasSuffix(rest, "/") {
			candidates = []string{rest + "index.html"}
		} else {
			candidates = []string{rest, rest + ".html", rest + "/index.html"}
		}
		for _, c := range candidates {
			file := path.Join(sr.Dir, c)
			fi, err := os.Stat(filepath.Join(o.Root, filepath.FromSlash(file)))
			if err == nil && fi.Mode().IsRegular() {
				return file, true
			}
		}
	}
	return "", false
}

// withoutQuery is a URL without its query and fragment.
func withoutQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.IndexAny(raw, "?#"); i >= 0 {
			return raw[:i]
		}
		return raw
	}
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	return u.String()
}

// encodeURIPath percent-encodes a path for a URI reference: every byte
// but the unreserved characters, "/" and the sub-delimiters that need no
// escape in a path is %XX (a space, non-ASCII, and ":" too, which would
// otherwise make "host:8443/x" read as a scheme).
func encodeURIPath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			strings.IndexByte("-._~/!$&'()*+,;=@", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

var (
	semverRE    = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	semverIdent = regexp.MustCompile(`^[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*$`)
)

// sourceLine is the line (from 1) of src, a document as served, where
// the element whose start tag the report shows (tag, at most 200
// characters, a value attribute shown as "…") starts; 0 when it is not
// there (a script made it) or could be one of several alike.
func sourceLine(src []byte, tag string) int {
	want, ok := parseStartTag(tag)
	if !ok {
		return 0
	}
	z := html.NewTokenizer(bytes.NewReader(src))
	line, best, bestScore, ties := 1, 0, -1, 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := z.Raw()
		if tt == html.StartTagToken || tt == html.SelfClosingTagToken {
			if got := tokenTag(z); got.name == want.name {
				if score, match := want.matches(got); match {
					switch {
					case score > bestScore:
						best, bestScore, ties = line, score, 1
					case score == bestScore:
						ties++
					}
				}
			}
		}
		line += bytes.Count(raw, []byte{'\n'})
	}
	if bestScore < 0 || ties > 1 { // not there, or not told apart
		return 0
	}
	return best
}

type startTag struct {
	name  string
	attrs map[string]string
	// clipped: the last attribute was cut short at 200 characters.
	clipped string
}

// parseStartTag reads a report's start tag.
func parseStartTag(tag string) (startTag, bool) {
	clipped := strings.HasSuffix(tag, "…") && !strings.HasSuffix(tag, "…\">") && !strings.HasSuffix(tag, ">")
	if clipped {
		tag = strings.TrimSuffix(tag, "…") + "\">"
	}
	z := html.NewTokenizer(strings.NewReader(tag))
	if tt := z.Next(); tt != html.StartTagToken && tt != html.SelfClosingTagToken {
		return startTag{}, false
	}
	t := tokenTag(z)
	if clipped {
		// The last attribute's value is cut short: it matches by prefix.
		t.clipped = lastAttr(tag)
	}
	return t, t.name != ""
}

// lastAttr is the name of the last attribute of a start tag.
func lastAttr(tag string) string {
	z := html.NewTokenizer(strings.NewReader(tag))
	z.Next()
	_, more := z.TagName()
	last := ""
	for more {
		var k []byte
		k, _, more = z.TagAttr()
		last = string(k)
	}
	return last
}

func tokenTag(z *html.Tokenizer) startTag {
	name, more := z.TagName()
	t := startTag{name: string(name), attrs: map[string]string{}}
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		t.attrs[string(k)] = string(v)
	}
	return t
}

// matches says whether got, a start tag as served, can be want (a tag as
// the page's DOM had it): every attribute the served tag has is in want
// with the same value (a value shown as "…" or cut short matches by what
// is shown); want may have more (a script may add attributes). score
// counts the attributes that matched; an id must match.
func (want startTag) matches(got startTag) (int, bool) {
	if id, ok := want.attrs["id"]; ok && got.attrs["id"] != id {
		return 0, false
	}
	score := 0
	for k, v := range got.attrs {
		w, ok := want.attrs[k]
		switch {
		case !ok:
			if want.clipped != "" {
				continue // it may be among what was cut off
			}
			return 0, false
		case w == "…", w == v:
		case k == want.clipped && strings.HasPrefix(v, w):
		default:
			return 0, false
		}
		score++
	}
	return score, true
}
