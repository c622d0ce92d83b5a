package session

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"unicode"

	"golang.org/x/net/idna"

	"github.com/poppy-browser/poppy-browser/spec"
)

// Company is the Company a browser's Session belongs to: whose website it is,
// where the browser joins, and what the browser declares on its requests.
//
// A Company is a value made by [Discover] or [NoJoin]; do not change it after
// handing it to other packages. Its methods are safe for concurrent use.
type Company struct {
	// Domain is organization.domain, normalised: the Company's website is
	// this host and its subdomains.
	Domain string
	// Name is organization.name; empty for [NoJoin].
	Name string
	// Endpoint is web.browser_session_endpoint, an HTTPS URL; empty for [NoJoin].
	Endpoint string
	// Extensions are what the browser declares in Poppy-Extensions on the
	// Company's requests: browser-control v1.
	Extensions []spec.Extension
}

// label names the Company in an error: "Demo Airline (airline.test)", or
// the domain alone when there is no name.
func (c *Company) label() string {
	d := displayDomain(c.Domain)
	n := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, c.Name)
	if n = strings.Join(strings.Fields(n), " "); n != "" {
		if len(n) > 80 {
			n = n[:80] + "…"
		}
		return fmt.Sprintf("%s (%s)", strings.ToValidUTF8(n, "?"), d)
	}
	return d
}

// IsCompanyHost reports whether host (with or without a port) is on the
// Company's website.
func (c *Company) IsCompanyHost(host string) bool {
	return c != nil && spec.MatchesDomain(c.Domain, host)
}

// IsCompanyURL reports whether raw is a URL on the Company's website.
func (c *Company) IsCompanyURL(raw string) bool {
	return c != nil && spec.MatchesURL(c.Domain, raw)
}

// DeclaresTo reports whether a request to raw carries the Company's
// Poppy-Extensions header: an https or wss URL on the Company's website,
// or, for a Company on "localhost" or a subdomain of it (--no-join in
// development), an http or ws one too. Declaring over cleartext would tell
// every network on the way what the browser is, and let it strip or add the
// header; loopback traffic does not cross a network.
func (c *Company) DeclaresTo(raw string) bool {
	return c.IsCompanyURL(raw) && spec.MayDeclare(raw)
}

// NoJoin returns the Company for --no-join: domain (a domain or an https URL)
// and its subdomains are the Company's website, the browser declares
// browser-control v1 on its requests there (what a Company developer needs
// to see the extension at work), and there is no Session and no endpoint, so
// [Join] refuses it. Besides what [Discover] accepts, "localhost" itself and
// an IPv4 literal (that address only) are allowed here, for a Company's site
// in development or on a staging server.
func NoJoin(domain string) (*Company, error) {
	target, err := parseCompany(domain, true)
	if err != nil {
		return nil, fmt.Errorf("company %s: %w", domain, err)
	}
	return &Company{
		Domain:     target.domain,
		Extensions: []spec.Extension{spec.BrowserControlV1()},
	}, nil
}

// companyTarget is what the user named as the Company.
type companyTarget struct {
	domain string // normalised host (ASCII, punycode), without port
	host   string // host to fetch from, with port when the URL had one
}

// parseCompany reads "airline.test", "bücher.test" or
// "https://airline.test/anything". It refuses a URL with userinfo (it
// would be dropped silently, and "https://airline.test@evil.test/" reads
// as the wrong Company to a person) and a public suffix ([spec.CheckCompanyDomain]);
// allowLocalhost lets "localhost" through for --no-join.
func parseCompany(s string, allowLocalhost bool) (companyTarget, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return companyTarget{}, errors.New("no company domain given")
	}
	host, port := s, ""
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			return companyTarget{}, fmt.Errorf("not a URL: %w", err)
		}
		if u.Scheme != "https" {
			return companyTarget{}, fmt.Errorf("company URL must use https, not %s", u.Scheme)
		}
		if u.User != nil {
			return companyTarget{}, errors.New("company URL must not hold userinfo (user@ or user:password@)")
		}
		if u.Host == "" {
			return companyTarget{}, errors.New("company URL has no host")
		}
		host, port = u.Hostname(), u.Port()
		if strings.HasPrefix(u.Host, "[") {
			host = u.Host // an IPv6 literal: let NormalizeDomain refuse it whole
		}
	} else if strings.ContainsAny(s, "/?#@ ") {
		return companyTarget{}, errors.New("not a domain or an https URL")
	}
	normalize := spec.NormalizeDomain
	if allowLocalhost {
		normalize = spec.NormalizeDevelopmentHost // an IPv4 literal too
	}
	domain, err := normalize(host)
	if err != nil {
		return companyTarget{}, err
	}
	if !(allowLocalhost && (domain == "localhost" || net.ParseIP(domain) != nil)) {
		if err := spec.CheckCompanyDomain(domain); err != nil {
			return companyTarget{}, err
		}
	}
	t := companyTarget{domain: domain, host: domain}
	if port != "" {
		t.host = net.JoinHostPort(domain, port)
	}
	return t, nil
}

// displayDomain is domain as a person reads it: an IDN in Unicode.
func displayDomain(domain string) string {
	if u, err := idna.Lookup.ToUnicode(domain); err == nil && u != "" {
		return u
	}
	return domain
}
