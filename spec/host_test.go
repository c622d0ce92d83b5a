package spec

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalizeDomain(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{"airline.test", "airline.test", false},
		{"AirLine.TEST", "airline.test", false},
		{"airline.test.", "airline.test", false},
		{"pay.airline.test", "pay.airline.test", false},
		{"xn--bcher-kva.test", "xn--bcher-kva.test", false},
		{"localhost", "localhost", false},
		{"a-b.c9.test", "a-b.c9.test", false},
		{"", "", true},
		{".", "", true},
		{"airline.test..", "", true},
		{".airline.test", "", true},
		{"air..line.test", "", true},
		{"airline.test:443", "", true},
		{"127.0.0.1", "", true},
		{"127.0.0.1.", "", true},
		{"1.2.3", "", true},
		{"0x7f.1", "", true},
		{"example.0x1F", "", true},
		{"2130706433", "", true},
		{"::1", "", true},
		{"[::1]", "", true},
		{"[2001:db8::1]:443", "", true},
		{"2001:db8::1", "", true},
		{"bücher.test", "xn--bcher-kva.test", false},
		{"Bücher.Test.", "xn--bcher-kva.test", false},
		{"XN--BCHER-KVA.test", "xn--bcher-kva.test", false},
		{"xn--ls8h.test", "xn--ls8h.test", false},
		{"\u212airline.test", "kirline.test", false}, // UTS #46 maps the Kelvin sign to k, as browsers do
		{"ａirline.test", "airline.test", false},      // and full-width letters to ASCII
		{"１２７.０.０.１", "", true},                      // full-width digits: an IP literal
		{"xn--zz.test", "", true},                    // invalid punycode
		{"xn--a.test", "", true},
		{"xn--.test", "", true}, // decodes to an empty label
		{"xn---.test", "", true},
		{"bü_cher.test", "", true},
		{"ab--c.test", "ab--c.test", false}, // plain ASCII keeps the plain rules
		{"air line.test", "", true},
		{"air_line.test", "", true},
		{"airline.test/", "", true},
		{"user@airline.test", "", true},
		{"-airline.test", "", true},
		{"airline-.test", "", true},
		{strings.Repeat("a", 64) + ".test", "", true},
		{strings.Repeat("a", 63) + ".test", strings.Repeat("a", 63) + ".test", false},
		{strings.Repeat("a.", 127) + "test", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := NormalizeDomain(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("NormalizeDomain(%q) = %q, %v; want error %v", tc.in, got, err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrBadDomain) {
				t.Errorf("error %v does not match ErrBadDomain", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("NormalizeDomain(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestMatchesDomain(t *testing.T) {
	tests := []struct {
		domain, host string
		want         bool
	}{
		{"airline.test", "airline.test", true},
		{"airline.test", "www.airline.test", true},
		{"airline.test", "pay.airline.test", true},
		{"airline.test", "a.b.airline.test", true},
		{"airline.test", "AIRLINE.Test", true},
		{"AIRLINE.TEST.", "pay.airline.test", true},
		{"airline.test", "airline.test.", true},
		{"airline.test", "airline.test:443", true},
		{"airline.test", "pay.airline.test.:8443", true},
		{"xn--bcher-kva.test", "pay.xn--bcher-kva.test", true},
		{"airline.test", "evilairline.test", false},
		{"airline.test", "airline.test.evil.test", false},
		{"airline.test", "airline.testevil", false},
		{"airline.test", "partner.test", false},
		{"airline.test", "test", false},
		{"airline.test", ".airline.test", false},
		{"airline.test", "airline.test..", false},
		{"airline.test", "airline.test:", false},
		{"airline.test", "airline.test:https", false},
		{"airline.test", "", false},
		{"", "airline.test", false},
		{"", "", false},
		{"127.0.0.1", "127.0.0.1", true}, // a development host (NormalizeDevelopmentHost): that address only
		{"127.0.0.1", "127.0.0.1:8443", true},
		{"127.0.0.1", "127.0.0.2", false},
		{"127.0.0.1", "a.127.0.0.1", false},
		{"0.1", "127.0.0.1", false},
		{"airline.test", "127.0.0.1", false},
		{"airline.test", "127.0.0.1:443", false},
		{"airline.test", "[::1]:443", false},
		{"airline.test", "::1", false},
		{"1", "127.0.0.1", false},
		{"airline.test", "ａirline.test", true}, // full-width a: browsers map it to airline.test, so do we
		{"xn--bcher-kva.test", "bücher.test", true},
		{"bücher.test", "pay.xn--bcher-kva.test:8443", true},
		{"bücher.test", "xn--zz.bücher.test", false},
	}
	for _, tc := range tests {
		t.Run(tc.domain+"|"+tc.host, func(t *testing.T) {
			if got := MatchesDomain(tc.domain, tc.host); got != tc.want {
				t.Errorf("MatchesDomain(%q, %q) = %v, want %v", tc.domain, tc.host, got, tc.want)
			}
		})
	}
}

func TestMatchesURL(t *testing.T) {
	tests := []struct {
		url  string
		want bool
	}{
		{"https://airline.test/", true},
		{"https://airline.test", true},
		{"http://airline.test/x?y#z", true},
		{"wss://pay.airline.test:8443/ws", true},
		{"ws://www.airline.test/", true},
		{"HTTPS://AIRLINE.TEST/", true},
		{"https://airline.test./", true},
		{"https://user:pw@airline.test/", true},
		{"https://airline.test@evil.test/", false},
		{"https://evil.test@airline.test/", true},
		{"https://airline.test:pw@evil.test/", false},
		{"https://evilairline.test/", false},
		{"https://airline.test.evil.test/", false},
		{"https://evil.test/airline.test", false},
		{"https://evil.test/?u=https://airline.test/", false},
		{`https://evil.test\@airline.test/`, false},
		{`https://airline.test\.evil.test/`, false},
		{"https://air\tline.test/", false},
		{"https://%61irline.test/", false},
		{"https://127.0.0.1/", false},
		{"https://[::1]/", false},
		{"https://[::ffff:127.0.0.1]/", false},
		{"ftp://airline.test/", false},
		{"file://airline.test/etc", false},
		{"javascript:alert(1)//airline.test", false},
		{"data:text/html,airline.test", false},
		{"https:airline.test", false},
		{"//airline.test/", false},
		{"/path", false},
		{"airline.test", false},
		{"https://airline.test:x/", false},
		{"https://", false},
		{"", false},
		{"https://xn--bcher-kva.airline.test/", true},
		{"https://bücher.airline.test/", true}, // xn--bcher-kva.airline.test
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			if got := MatchesURL("airline.test", tc.url); got != tc.want {
				t.Errorf("MatchesURL(%q, %q) = %v, want %v", "airline.test", tc.url, got, tc.want)
			}
		})
	}
}

// TestNormalizeDomainErrorsReadable: a non-ASCII host is named as it was
// written, never as bytes of UTF-8 read one by one.
func TestNormalizeDomainErrorsReadable(t *testing.T) {
	for _, in := range []string{"bü_cher.test", "xn--zz.bücher.test", "çé .test"} {
		_, err := NormalizeDomain(in)
		if err == nil {
			t.Fatalf("NormalizeDomain(%q) succeeded", in)
		}
		if msg := err.Error(); !strings.Contains(msg, `"`+in+`"`) || strings.Contains(msg, "Ã") || strings.Contains(msg, "\n") {
			t.Errorf("error %q does not name %q readably on one line", msg, in)
		}
	}
}

func TestCheckCompanyDomain(t *testing.T) {
	for _, ok := range []string{"airline.test", "www.test", "pay.airline.test", "bücher.test", "xn--bcher-kva.test", "example.co.uk", "a.github.io", "dev.localhost"} {
		if err := CheckCompanyDomain(ok); err != nil {
			t.Errorf("CheckCompanyDomain(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"test", "TEST.", "co.uk", "com", "github.io", "localhost", "xn--p1ai"} {
		err := CheckCompanyDomain(bad)
		if !errors.Is(err, ErrPublicSuffix) {
			t.Errorf("CheckCompanyDomain(%q) = %v, want ErrPublicSuffix", bad, err)
		}
	}
	if err := CheckCompanyDomain("127.0.0.1"); !errors.Is(err, ErrBadDomain) {
		t.Errorf("CheckCompanyDomain(127.0.0.1) = %v, want ErrBadDomain", err)
	}
}

func TestMayDeclare(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"https://airline.test/", true},
		{"wss://live.airline.test/socket", true},
		{"HTTPS://airline.test", true},
		{"http://airline.test/", false},
		{"ws://airline.test/socket", false},
		{"http://localhost:8080/", true},
		{"ws://localhost:8080/", true},
		{"http://dev.localhost/", true},
		{"http://LOCALHOST./", true},
		{"http://127.0.0.1:8080/", true},
		{"http://[::1]:8080/", true},
		{"http://localhost.evil.test/", false},
		{"http://127.0.0.1.evil.test/", false},
		{"ftp://airline.test/", false},
		{"data:text/html,x", false},
		{"null", false},
	} {
		if got := MayDeclare(tc.url); got != tc.want {
			t.Errorf("MayDeclare(%q) = %v, want %v", tc.url, got, tc.want)
		}
	}
}
