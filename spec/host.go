package spec

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// ErrBadDomain matches (with errors.Is) every error from [NormalizeDomain].
var ErrBadDomain = errors.New("invalid domain")

// ErrIPLiteral is the error for an IP address (or a name a browser reads
// as one) where a domain belongs; it matches [ErrBadDomain] too.
var ErrIPLiteral = fmt.Errorf("%w: an IP literal", ErrBadDomain)

// NormalizeDomain returns s as a Company domain or host name: ASCII lower
// case, one trailing dot removed. It refuses an empty name, an IP literal
// (IPv4 or IPv6, bracketed or not, and anything a browser would read as an
// IPv4 address, such as a last label of digits), a port, and anything but
// letters, digits and hyphens in dot-separated labels of 1 to 63 characters.
//
// An internationalized name is accepted in its Unicode form ("bücher.test")
// or its punycode form ("xn--bcher-kva.test") and comes back in punycode:
// a name with a non-ASCII character or an "xn--" label goes through IDNA
// (UTS #46, the lookup profile of golang.org/x/net/idna, which maps as
// browsers do), so invalid punycode is refused.
func NormalizeDomain(s string) (string, error) {
	d, err := normalizeHost(s)
	if err != nil {
		return "", fmt.Errorf("normalizing domain %q: %w", s, err)
	}
	return d, nil
}

// NormalizeDevelopmentHost is [NormalizeDomain] that also accepts an IPv4
// literal, returned in dotted-decimal form: a Company's site in development
// or on a staging server reached without a name (--no-join, check
// --no-discovery). Such a "domain" matches that address only, never a
// subdomain. A Company from poppy.json is never an IP literal.
func NormalizeDevelopmentHost(s string) (string, error) {
	if ip := net.ParseIP(s); ip != nil && ip.To4() != nil && !strings.Contains(s, ":") {
		return ip.To4().String(), nil
	}
	return NormalizeDomain(s)
}

// ipDomain is the IPv4 address of a development "domain", or nil.
func ipDomain(domain string) net.IP {
	if ip := net.ParseIP(domain); ip != nil {
		return ip.To4()
	}
	return nil
}

// normalizeHost is [NormalizeDomain] without the input in the error.
func normalizeHost(s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("%w: empty", ErrBadDomain)
	}
	if strings.HasPrefix(s, "[") || net.ParseIP(s) != nil {
		return "", ErrIPLiteral
	}
	if strings.Contains(s, ":") {
		return "", fmt.Errorf("%w: has a port or colon", ErrBadDomain)
	}
	if needsIDNA(s) {
		if !utf8.ValidString(s) { // IDNA would map the bad bytes to U+FFFD
			return "", fmt.Errorf("%w: not valid UTF-8", ErrBadDomain)
		}
		a, err := idna.Lookup.ToASCII(s)
		if err == nil {
			// The result must read back: ToASCII checks some rules (bidi)
			// before mapping, ToUnicode checks them on what is sent.
			_, err = idna.Lookup.ToUnicode(a)
		}
		if err != nil {
			return "", fmt.Errorf("%w: not a valid internationalized name: %s", ErrBadDomain, strings.TrimPrefix(err.Error(), "idna: "))
		}
		if net.ParseIP(a) != nil { // full-width digits map to ASCII ones
			return "", ErrIPLiteral
		}
		s = a
	}
	// Only ASCII is left; check bytes before lowercasing.
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return "", fmt.Errorf("%w: character %q at %d is not a letter, digit, hyphen or dot", ErrBadDomain, rune(c), i)
		}
	}
	d := strings.ToLower(strings.TrimSuffix(s, "."))
	if len(d) > 253 {
		return "", fmt.Errorf("%w: longer than 253 characters", ErrBadDomain)
	}
	labels := strings.Split(d, ".")
	for _, l := range labels {
		switch {
		case l == "":
			return "", fmt.Errorf("%w: empty label", ErrBadDomain)
		case len(l) > 63:
			return "", fmt.Errorf("%w: label longer than 63 characters", ErrBadDomain)
		case l[0] == '-' || l[len(l)-1] == '-':
			return "", fmt.Errorf("%w: label starts or ends with a hyphen", ErrBadDomain)
		}
	}
	if looksNumeric(labels[len(labels)-1]) {
		return "", ErrIPLiteral
	}
	return d, nil
}

// needsIDNA reports whether s has a non-ASCII byte or an "xn--" label,
// the names IDNA converts or must validate. Other ASCII names keep the
// plain rules (IDNA would also refuse "ab--c", which browsers accept).
func needsIDNA(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return true
		}
	}
	for l := range strings.SplitSeq(s, ".") {
		if len(l) >= 4 && strings.EqualFold(l[:4], "xn--") {
			return true
		}
	}
	return false
}

// ErrPublicSuffix matches (with errors.Is) the error from
// [CheckCompanyDomain] for a public suffix.
var ErrPublicSuffix = errors.New("a public suffix cannot be a Company")

// CheckCompanyDomain checks that domain, normalized, can be a Company's
// organization.domain: it must have at least one label below its public
// suffix, as the Public Suffix List (golang.org/x/net/publicsuffix, ICANN
// and private sections) says; publicsuffix.EffectiveTLDPlusOne must
// succeed. A name the list does not know counts as having a one-label
// suffix, so "airline.test" passes and "test", "co.uk", "github.io" and
// "localhost" do not: a Company that is a public suffix would make every
// site under it the Company's.
func CheckCompanyDomain(domain string) error {
	d, err := normalizeHost(domain)
	if err != nil {
		return err
	}
	if _, err := publicsuffix.EffectiveTLDPlusOne(d); err != nil {
		return fmt.Errorf("%w: %q", ErrPublicSuffix, d)
	}
	return nil
}

// looksNumeric reports whether a last label makes a browser parse the host
// as IPv4 (WHATWG URL "ends in a number"): all decimal digits, or 0x and hex.
func looksNumeric(l string) bool {
	if rest, ok := strings.CutPrefix(l, "0x"); ok {
		return strings.Trim(rest, "0123456789abcdef") == ""
	}
	return strings.Trim(l, "0123456789") == ""
}

// stripPort removes a valid port (decimal digits) from "host:port"; any
// other input comes back unchanged, for normalizeHost to judge.
func stripPort(hostport string) string {
	h, port, err := net.SplitHostPort(hostport)
	if err != nil || port == "" || strings.Trim(port, "0123456789") != "" {
		return hostport
	}
	return h
}

// MatchesDomain reports whether host is domain or one of its subdomains, on
// a label boundary: "pay.airline.test" matches "airline.test",
// "evilairline.test" and "airline.test.evil.test" do not. Case and one
// trailing dot are ignored on both sides; host may carry a port
// ("airline.test:8443"). An invalid domain, an invalid host or an IP literal
// never matches, except that an IPv4 "domain" from
// [NormalizeDevelopmentHost] matches that address exactly.
func MatchesDomain(domain, host string) bool {
	if ip := ipDomain(domain); ip != nil {
		return ip.Equal(net.ParseIP(stripPort(host)))
	}
	d, err := normalizeHost(domain)
	if err != nil {
		return false
	}
	h, err := normalizeHost(stripPort(host))
	if err != nil {
		return false
	}
	return h == d || strings.HasSuffix(h, "."+d)
}

// MatchesURL reports whether rawURL is an absolute http, https, ws or wss
// URL whose host matches domain as [MatchesDomain] says (case, one trailing
// dot and the port ignored; Unicode and punycode forms equal). It parses with
// net/url, so userinfo never matters: "https://airline.test@evil.test/" is
// on evil.test. A URL that does not parse, or that holds a backslash or an
// ASCII control character or space (which browsers and net/url read
// differently), never matches.
func MatchesURL(domain, rawURL string) bool {
	if strings.ContainsFunc(rawURL, func(r rune) bool { return r == '\\' || r <= ' ' || r == 0x7f }) {
		return false
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Opaque != "" {
		return false
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return false
	}
	if u.Host == "" || strings.HasPrefix(u.Host, "[") {
		return false
	}
	if ip := ipDomain(domain); ip != nil {
		return ip.Equal(net.ParseIP(u.Hostname())) && u.Hostname() == ip.String()
	}
	return MatchesDomain(domain, u.Hostname())
}

// MayDeclare reports whether the browser may declare itself (the
// Poppy-Extensions header, navigator.poppy) to rawURL's origin: over TLS
// (https, wss), or in the clear only to a loopback host (localhost, a
// subdomain of localhost, a loopback address: a Company's development
// server), where no network lies between. A cleartext origin elsewhere would
// tell the network what the browser is, and a script the network injects
// could read navigator.poppy.
func MayDeclare(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "https", "wss":
		return true
	case "http", "ws":
		h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
		ip := net.ParseIP(h)
		return h == "localhost" || strings.HasSuffix(h, ".localhost") || (ip != nil && ip.IsLoopback())
	}
	return false
}
