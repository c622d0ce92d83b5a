package check

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html"
)

// Crawl bounds (see [CrawlOptions]).
const (
	DefaultCrawlDepth = 3
	DefaultCrawlTime  = 2 * time.Minute
	maxCrawlBody      = 5 << 20 // bytes read of one page or sitemap
)

// CrawlOptions bound a crawl (--crawl N): at most Max pages in all, the
// pages given included, at most Depth links from them, for at most Time.
type CrawlOptions struct {
	Max   int
	Depth int           // 0 means DefaultCrawlDepth
	Time  time.Duration // 0 means DefaultCrawlTime
	// Include and Exclude are patterns on a page's path ("/checkout/*",
	// "*.pdf"; "*" is any run of characters, "/" included): a page found
	// by the crawl is checked when it matches an Include pattern (or there
	// is none) and no Exclude pattern. The pages given are always checked.
	Include, Exclude []string
}

// Crawl returns the pages given and the pages of the same host found from
// them: the links of their HTML as the server sends it (a, area), and the
// host's sitemap.xml (and the sitemaps it lists, one level), bounded by
// opts. It fetches with the checker's client and headers (staging CA,
// --resolve, --header); a page that cannot be fetched is left out (the
// pages given are kept: the check says why they fail). The order is the
// pages given, then breadth first.
func (c *Checker) Crawl(ctx context.Context, start []string, opts CrawlOptions) ([]string, error) {
	if opts.Depth <= 0 {
		opts.Depth = DefaultCrawlDepth
	}
	if opts.Time <= 0 {
		opts.Time = DefaultCrawlTime
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Time)
	defer cancel()
	seen := map[string]bool{}
	var out []string
	type item struct {
		u     string
		depth int
	}
	var queue []item
	hosts := map[string]bool{}
	for _, s := range start {
		key := crawlKey(s)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, s)
		queue = append(queue, item{s, 0})
		if u, err := url.Parse(s); err == nil {
			hosts[u.Scheme+"://"+u.Host] = true
			c.discMu.Lock()
			c.startHosts = append(c.startHosts, u.Hostname())
			c.discMu.Unlock()
		}
	}
	add := func(raw string, depth int) {
		if len(out) >= max(opts.Max, len(start)) {
			return
		}
		key := crawlKey(raw)
		if seen[key] {
			return
		}
		seen[key] = true
		u, err := url.Parse(raw)
		if err != nil || !hosts[u.Scheme+"://"+u.Host] || !wanted(u.Path, opts) {
			return
		}
		out = append(out, key)
		queue = append(queue, item{key, depth})
	}
	for origin := range hosts {
		for _, loc := range c.sitemap(ctx, origin+"/sitemap.xml", 1) {
			add(loc, 1)
		}
	}
	for len(queue) > 0 && ctx.Err() == nil && len(out) < max(opts.Max, len(start)) {
		it := queue[0]
		queue = queue[1:]
		if it.depth >= opts.Depth {
			continue
		}
		body, base, ok := c.fetch(ctx, it.u, "text/html")
		if !ok {
			continue
		}
		for _, l := range links(body, base) {
			add(l, it.depth+1)
		}
	}
	return out, nil
}

// crawlKey is a URL as the crawl tells pages apart: without its fragment.
func crawlKey(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// wanted says whether a page found by the crawl is checked, by its path.
func wanted(p string, opts CrawlOptions) bool {
	if p == "" {
		p = "/"
	}
	for _, x := range opts.Exclude {
		if globMatch(x, p) {
			return false
		}
	}
	if len(opts.Include) == 0 {
		return true
	}
	for _, in := range opts.Include {
		if globMatch(in, p) {
			return true
		}
	}
	return false
}

// globMatch matches s against a pattern where "*" is any run of
// characters ("/" included) and "?" one character.
func globMatch(pattern, s string) bool {
	if pattern == "" {
		return s == ""
	}
	switch pattern[0] {
	case '*':
		for i := 0; i <= len(s); i++ {
			if globMatch(pattern[1:], s[i:]) {
				return true
			}
		}
		return false
	case '?':
		return s != "" && globMatch(pattern[1:], s[1:])
	}
	return s != "" && s[0] == pattern[0] && globMatch(pattern[1:], s[1:])
}

// fetch GETs raw with the checker's client and headers and returns its
// body (at most maxCrawlBody) and final URL, when it answered 200 with a
// type of want.
func (c *Checker) fetch(ctx context.Context, raw, want string) ([]byte, *url.URL, bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, nil, false
	}
	for name, v := range c.headersFor(req.URL) {
		req.Header.Set(name, v)
	}
	for _, ck := range c.opts.StorageState.cookiesFor(req.URL) {
		req.AddCookie(ck)
	}
	res, err := c.crawlClient().Do(req)
	if err != nil {
		c.log.Debug("crawl: fetching", "url", withoutQuery(raw), "err", err)
		return nil, nil, false
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Content-Type"), want) {
		return nil, nil, false
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxCrawlBody))
	if err != nil {
		return nil, nil, false
	}
	return body, res.Request.URL, true
}

// links are the a and area hrefs of an HTML document, resolved against
// base (and its base element), http and https only.
func links(body []byte, base *url.URL) []string {
	var out []string
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return out
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, more := z.TagName()
		tag := string(name)
		if tag != "a" && tag != "area" && tag != "base" {
			continue
		}
		for more {
			var k, v []byte
			k, v, more = z.TagAttr()
			if string(k) != "href" {
				continue
			}
			u, err := base.Parse(strings.TrimSpace(string(v)))
			if err != nil {
				break
			}
			if tag == "base" {
				base = u
				break
			}
			if u.Scheme == "http" || u.Scheme == "https" {
				out = append(out, u.String())
			}
		}
	}
}

// sitemap is the page URLs a sitemap lists (and, depth levels down, those
// of the sitemaps a sitemap index lists).
func (c *Checker) sitemap(ctx context.Context, raw string, depth int) []string {
	body, _, ok := c.fetch(ctx, raw, "xml")
	if !ok {
		return nil
	}
	var doc struct {
		XMLName xml.Name
		URLs    []struct {
			Loc string `xml:"loc"`
		} `xml:"url"`
		Sitemaps []struct {
			Loc string `xml:"loc"`
		} `xml:"sitemap"`
	}
	if err := xml.Unmarshal(body, &doc); err != nil {
		return nil
	}
	var out []string
	for _, u := range doc.URLs {
		out = append(out, strings.TrimSpace(u.Loc))
	}
	if depth > 0 {
		for _, s := range doc.Sitemaps {
			out = append(out, c.sitemap(ctx, strings.TrimSpace(s.Loc), depth-1)...)
		}
	}
	return out
}
