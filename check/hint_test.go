package check

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/poppy-browser/poppy-browser/spec"
)

// A discovery error points at the flag that helps, told by its type (or
// the host), not its words.
func TestFlagHint(t *testing.T) {
	up := func() bool { return true }
	_, ipErr := spec.NormalizeDomain("127.0.0.1")
	tests := []struct {
		name, host string
		err        error
		want       string
	}{
		{"an IP address", "127.0.0.1", fmt.Errorf("discovering: %w", ipErr), " (a page in development: use --no-discovery)"},
		{"localhost", "localhost", errors.New("discovering localhost: a public suffix cannot be a Company"), " (a page in development: use --no-discovery)"},
		{"a private CA", "staging.test", fmt.Errorf("fetching: %w", x509.UnknownAuthorityError{}), " (a staging server with a private CA: use --ca-file)"},
		{"a certificate for another name", "staging.test",
			fmt.Errorf("fetching: %w", &tls.CertificateVerificationError{Err: x509.HostnameError{Host: "staging.test", Certificate: &x509.Certificate{}}}),
			" (a staging server with a private CA: use --ca-file)"},
		{"not in DNS", "staging.test", fmt.Errorf("fetching: %w", &net.DNSError{Err: "no such host", Name: "staging.test", IsNotFound: true}), " (a staging server not in DNS: use --resolve HOST=ADDR)"},
		{"a page that says localhost", "airline.test", errors.New("poppy.json: organization.domain is localhost"), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := flagHint(tc.err, up)
			if devHost(tc.host) {
				got = hintNoDiscovery
			}
			if got != tc.want {
				t.Errorf("flagHint(%q, %v) = %q, want %q", tc.host, tc.err, got, tc.want)
			}
		})
	}
}

// A development host or an IP address skips discovery by itself, and says
// why; any other host is discovered.
func TestSkipsDiscovery(t *testing.T) {
	for host, want := range map[string]string{
		"localhost":      "localhost is a development host",
		"app.localhost":  "app.localhost is a development host",
		"127.0.0.1":      "127.0.0.1 is an IP address",
		"::1":            "::1 is an IP address",
		"airline.test":   "",
		"localhost.shop": "",
	} {
		if got := skipsDiscovery(host); got != want {
			t.Errorf("skipsDiscovery(%q) = %q, want %q", host, got, want)
		}
	}
}
