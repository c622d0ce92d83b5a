package session

import (
	"net/url"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/spec"
)

// FuzzParseCompany holds the Company URL parser to its promises: what it
// accepts is a normalized, registrable domain without userinfo, fetched
// from that domain (and the port given), and parsing the result again gives
// the same Company.
func FuzzParseCompany(f *testing.F) {
	for _, s := range []string{
		"airline.test", "https://airline.test/x", "https://Airline.Test.:8443/", "https://airline.test@evil.test/",
		"https://u:p@airline.test/", "bücher.test", "https://xn--bcher-kva.test/", "xn--zz.test", "test", "co.uk",
		"http://airline.test/", "https://127.0.0.1/", "https://[::1]/", "https://airline.test:x/", "localhost", " airline.test ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		target, err := parseCompany(s, false)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") && !strings.ContainsAny(s, "\r\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		if d, err := spec.NormalizeDomain(target.domain); err != nil || d != target.domain {
			t.Fatalf("parseCompany(%q).domain = %q is not normalized (%q, %v)", s, target.domain, d, err)
		}
		if err := spec.CheckCompanyDomain(target.domain); err != nil {
			t.Fatalf("parseCompany(%q) accepted %q: %v", s, target.domain, err)
		}
		u, err := url.Parse("https://" + target.host + "/")
		if err != nil || u.User != nil || u.Hostname() != target.domain {
			t.Fatalf("parseCompany(%q).host = %q does not fetch from %q", s, target.host, target.domain)
		}
		if strings.Contains(s, "://") {
			if p, err := url.Parse(strings.TrimSpace(s)); err != nil || p.User != nil || p.Scheme != "https" {
				t.Fatalf("parseCompany(%q) accepted a URL with userinfo or another scheme", s)
			}
		}
		again, err := parseCompany(target.host, false)
		if target.host == target.domain && (err != nil || again != target) {
			t.Fatalf("parseCompany(%q) = %+v, but parsing its host again gives %+v, %v", s, target, again, err)
		}
		if !(&Company{Domain: target.domain}).IsCompanyHost(target.host) {
			t.Fatalf("parseCompany(%q): the Company does not own its own host %q", s, target.host)
		}
	})
}
