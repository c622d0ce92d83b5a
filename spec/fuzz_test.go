package spec

import (
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/idna"
)

func FuzzParseExtensions(f *testing.F) {
	for _, s := range []string{
		`"browser-control";v="1"`, `"a";v="1", "b";v="2";x`, `browser-control;v="1"`, `"x";v=1`,
		`("a");v="1"`, `"a\"b";v="\\"`, `"a";v="1",`, ``, `"a";v=?1`, `"a";v=:AA==:`, `"a";v=%"x"`,
	} {
		f.Add(s, "")
	}
	f.Add(`"a";v="1"`, `"b";v="2"`)
	f.Fuzz(func(t *testing.T, line1, line2 string) {
		values := []string{line1}
		if line2 != "" {
			values = append(values, line2)
		}
		exts, err := ParseExtensions(values)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		s, err := FormatExtensions(exts)
		if err != nil {
			t.Fatalf("FormatExtensions(ParseExtensions(%q) = %v) failed: %v", values, exts, err)
		}
		again, err := ParseExtensions([]string{s})
		if err != nil {
			t.Fatalf("ParseExtensions(%q) after round trip failed: %v", s, err)
		}
		if len(exts) == 0 && len(again) == 0 {
			return
		}
		if diff := cmp.Diff(exts, again); diff != "" {
			t.Fatalf("round trip of %q through %q (-first +second):\n%s", values, s, diff)
		}
	})
}

func FuzzParseDocument(f *testing.F) {
	f.Add([]byte(doc04), "airline.test")
	f.Add([]byte(doc04), "www.airline.test:443")
	f.Add([]byte(`{"protocol_version":"0.1","organization":{"domain":"a.test"},"extensions":{"browser-control":{"version":"1"}}}`), "a.test")
	f.Add([]byte(`{"protocol_version":"0.1","organization":{"domain":"a.test"},"web":{"browser_session_endpoint":"https://x@a.test/"}}`), "a.test")
	f.Add([]byte(`{"protocol_version":"1.0"}`), "a.test")
	f.Add([]byte(`{`), "a.test")
	f.Fuzz(func(t *testing.T, data []byte, host string) {
		doc, warns, err := ParseDocument(data, host)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			if doc != nil || warns != nil {
				t.Fatalf("error %v came with a document or warnings", err)
			}
			return
		}
		d := doc.Organization.Domain
		if n, err := NormalizeDomain(d); err != nil || n != d {
			t.Fatalf("organization.domain %q is not normalized: %q, %v", d, n, err)
		}
		if !MatchesDomain(d, host) {
			t.Fatalf("organization.domain %q accepted for host %q it does not match", d, host)
		}
		if ep := doc.Web.BrowserSessionEndpoint; ep != "" {
			if !strings.HasPrefix(strings.ToLower(ep), "https://") || !MatchesURL(d, ep) {
				t.Fatalf("endpoint %q accepted for domain %q", ep, d)
			}
			if u, err := url.Parse(ep); err != nil || u.User != nil {
				t.Fatalf("endpoint %q has userinfo or does not parse", ep)
			}
			if err := doc.RequireBrowserControl(); err != nil && doc.Supports(BrowserControlV1()) {
				t.Fatalf("RequireBrowserControl refused a parsed document that supports v1: %v", err)
			}
		}
		for name, entries := range doc.Extensions {
			if len(entries) == 0 {
				t.Fatalf("extension %q kept with no entries", name)
			}
			for _, e := range entries {
				if e.Version == "" {
					t.Fatalf("extension %q has an empty version", name)
				}
			}
		}
	})
}

func FuzzMatchesURL(f *testing.F) {
	for _, u := range []string{
		"https://airline.test/", "https://airline.test@evil.test/", "https://evilairline.test/",
		"https://airline.test.evil.test/", "wss://a.airline.test:1/", "https://[::1]/", "https://127.0.0.1/",
		`https://evil.test\@airline.test/`, "HTTPS://AIRLINE.TEST./", "https://%61irline.test/",
	} {
		f.Add("airline.test", u)
	}
	f.Fuzz(func(t *testing.T, domain, raw string) {
		if !MatchesURL(domain, raw) {
			return
		}
		d, err := NormalizeDomain(domain)
		if err != nil {
			t.Fatalf("MatchesURL(%q, %q) true for an invalid domain: %v", domain, raw, err)
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("MatchesURL(%q, %q) true for a URL that does not parse: %v", domain, raw, err)
		}
		switch u.Scheme {
		case "http", "https", "ws", "wss":
		default:
			t.Fatalf("MatchesURL(%q, %q) true for scheme %q", domain, raw, u.Scheme)
		}
		h, err := NormalizeDomain(u.Hostname())
		if err != nil {
			t.Fatalf("MatchesURL(%q, %q) true for host %q: %v", domain, raw, u.Hostname(), err)
		}
		if h != d && !strings.HasSuffix(h, "."+d) {
			t.Fatalf("MatchesURL(%q, %q) true but host %q is not on %q at a label boundary", domain, raw, h, d)
		}
		if net.ParseIP(h) != nil || net.ParseIP(u.Hostname()) != nil || strings.ContainsAny(u.Host, "@[]\\") {
			t.Fatalf("MatchesURL(%q, %q) true for host %q", domain, raw, u.Host)
		}
	})
}

func FuzzNormalizeDomain(f *testing.F) {
	for _, s := range []string{"airline.test", "AIRLINE.TEST.", "127.0.0.1", "::1", "[::1]", "0x7f.1", "a..b", "xn--bcher-kva.test", "\u212a.test", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := NormalizeDomain(s)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") && !strings.ContainsAny(s, "\r\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		if strings.Trim(d, "abcdefghijklmnopqrstuvwxyz0123456789-.") != "" {
			t.Fatalf("NormalizeDomain(%q) = %q holds other characters", s, d)
		}
		if !needsIDNA(s) && d != strings.ToLower(strings.TrimSuffix(s, ".")) {
			t.Fatalf("NormalizeDomain(%q) = %q changed more than case and one trailing dot", s, d)
		}
		if needsIDNA(s) {
			if u, err := idna.Lookup.ToUnicode(d); err != nil {
				t.Fatalf("NormalizeDomain(%q) = %q, which does not convert back to Unicode: %v", s, d, err)
			} else if back, err := NormalizeDomain(u); err != nil || back != d {
				t.Fatalf("NormalizeDomain(%q) = %q, but its Unicode form %q gives %q, %v", s, d, u, back, err)
			}
		}
		if again, err := NormalizeDomain(d); err != nil || again != d {
			t.Fatalf("NormalizeDomain not idempotent: %q -> %q -> %q, %v", s, d, again, err)
		}
		if net.ParseIP(d) != nil {
			t.Fatalf("NormalizeDomain(%q) accepted an IP literal", s)
		}
		if !MatchesDomain(d, d) || !MatchesDomain(s, strings.ToUpper(d)) || !MatchesDomain(s, d+".:8443") {
			t.Fatalf("%q does not match itself", d)
		}
		if len(d) < 250 && !MatchesDomain(d, "x."+d) {
			t.Fatalf("%q does not match its subdomain", d)
		}
		if look := d + ".x0x"; MatchesDomain(d, "x"+d) || MatchesDomain(d, look) && !strings.HasSuffix(look, "."+d) {
			t.Fatalf("%q matches a look-alike", d)
		}
	})
}

// FuzzMatchesDomain holds the host matcher to a model: a host matches when,
// normalized, it is the domain or ends in "." + the domain; a port, case, a
// trailing dot and the IDN form never change the answer.
func FuzzMatchesDomain(f *testing.F) {
	for _, p := range [][2]string{
		{"airline.test", "pay.airline.test"}, {"airline.test", "evilairline.test"}, {"airline.test", "airline.test.:443"},
		{"bücher.test", "pay.xn--bcher-kva.test"}, {"airline.test", "ａirline.test"}, {"airline.test", "airline.test.evil.test"},
		{"xn--zz.test", "xn--zz.test"}, {"test", "airline.test"}, {"airline.test", "[::1]:443"}, {"a.test", "a.test:x"},
	} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, domain, host string) {
		got := MatchesDomain(domain, host)
		d, errD := NormalizeDomain(domain)
		h, errH := NormalizeDomain(stripPort(host))
		want := errD == nil && errH == nil && (h == d || strings.HasSuffix(h, "."+d))
		if got != want {
			t.Fatalf("MatchesDomain(%q, %q) = %v, model says %v (%q, %v; %q, %v)", domain, host, got, want, d, errD, h, errH)
		}
		if !got {
			return
		}
		for _, variant := range []string{strings.ToUpper(h), h + ".", h + ":443", h + ".:8443"} {
			if !MatchesDomain(domain, variant) {
				t.Fatalf("MatchesDomain(%q, %q) true but false for %q", domain, host, variant)
			}
		}
		if u, err := idna.Lookup.ToUnicode(h); err == nil && !MatchesDomain(domain, u) {
			t.Fatalf("MatchesDomain(%q, %q) true but false for its Unicode form %q", domain, host, u)
		}
		if !MatchesURL(domain, "https://"+h+"/") {
			t.Fatalf("MatchesDomain(%q, %q) true but MatchesURL false", domain, host)
		}
	})
}
