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
		{"bücher.test", "", true},
		{"\u212airline.test", "", true}, // Kelvin sign lowercases to k
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
		{"127.0.0.1", "127.0.0.1", false},
		{"0.1", "127.0.0.1", false},
		{"airline.test", "127.0.0.1", false},
		{"airline.test", "127.0.0.1:443", false},
		{"airline.test", "[::1]:443", false},
		{"airline.test", "::1", false},
		{"1", "127.0.0.1", false},
		{"airline.test", "ａirline.test", false}, // full-width a: a browser would map it, we refuse
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
		{"https://bücher.airline.test/", false},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			if got := MatchesURL("airline.test", tc.url); got != tc.want {
				t.Errorf("MatchesURL(%q, %q) = %v, want %v", "airline.test", tc.url, got, tc.want)
			}
		})
	}
}
