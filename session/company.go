package session

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

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

// IsCompanyHost reports whether host (with or without a port) is on the
// Company's website.
func (c *Company) IsCompanyHost(host string) bool {
	return c != nil && spec.MatchesDomain(c.Domain, host)
}

// IsCompanyURL reports whether raw is a URL on the Company's website.
func (c *Company) IsCompanyURL(raw string) bool {
	return c != nil && spec.MatchesURL(c.Domain, raw)
}

// NoJoin returns the Company for --no-join: domain (a domain or an https URL)
// and its subdomains are the Company's website, the browser declares
// browser-control v1, and there is no Session and no endpoint, so [Join]
// refuses it.
func NoJoin(domain string) (*Company, error) {
	target, err := parseCompany(domain)
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
	domain string // normalised host, without port
	host   string // host to fetch from, with port when the URL had one
}

// parseCompany reads "airline.test" or "https://airline.test/anything".
func parseCompany(s string) (companyTarget, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return companyTarget{}, errors.New("no company domain given")
	}
	host := s
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			return companyTarget{}, fmt.Errorf("not a URL: %w", err)
		}
		if u.Scheme != "https" {
			return companyTarget{}, fmt.Errorf("company URL must use https, not %s", u.Scheme)
		}
		if u.Host == "" {
			return companyTarget{}, errors.New("company URL has no host")
		}
		host = u.Host
	} else if strings.ContainsAny(s, "/?#@ ") {
		return companyTarget{}, errors.New("not a domain or an https URL")
	}
	bare := host
	if u, err := url.Parse("https://" + host); err == nil && u.Port() != "" {
		bare = u.Hostname()
	}
	domain, err := spec.NormalizeDomain(bare)
	if err != nil {
		return companyTarget{}, err
	}
	if bare == host {
		host = domain
	}
	return companyTarget{domain: domain, host: host}, nil
}
