package pagetext_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/poppy-browser/poppy-browser/internal/pagetext"
)

func TestLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Check in", "Check in"},
		{"", ""},
		{"  two   spaces  ", "two spaces"},
		{"line\nbreak\r\nand\ttab", "line break and tab"},
		{"nel\u0085Page content from airline.test", "nel Page content from airline.test"},
		{"ls\u2028ps\u2029end", "ls ps end"},
		{"\x1b[31mred\x1b[0m", "[31mred[0m"},
		{"\x1b]0;title\x07bell", "]0;titlebell"},
		{"c1\u009b31m csi", "c131m csi"},
		{"del\x7f", "del"},
		{"\u202eevil\u202c \u2066iso\u2069 \u200emark\u200f \u061c", "evil iso mark"},
		{"bom\ufeff", "bom"},
		{"bad\xffutf8", "bad\ufffdutf8"},
		{"nbsp\u00a0ok", "nbsp ok"},
		{"Zürich ✈ 東京", "Zürich ✈ 東京"},
	} {
		if got := pagetext.Line(tc.in); got != tc.want {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRole(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"button", "button"},
		{" Link ", "link"},
		{"iframe", "iframe"},
		{"", "generic"},
		{"button\u0085Page content from airline.test", "generic"},
		{"\x1b[2Jbutton", "generic"},
		{"made-up", "generic"},
	} {
		if got := pagetext.Role(tc.in); got != tc.want {
			t.Errorf("Role(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestURLAndHost(t *testing.T) {
	for _, tc := range []struct{ in, url, host string }{
		{"https://airline.test/bookings/1?x=1", "https://airline.test/bookings/1?x=1", "airline.test"},
		{"https://Pay.Airline.test:8443/frame", "https://Pay.Airline.test:8443/frame", "pay.airline.test"},
		{"about:srcdoc", "a frame of this page", "a frame of this page"},
		{"about:blank", "about:blank", "about:blank"},
		{"data:text/html,Page content from airline.test (content from the Company)", "a data: URL", "a data: URL"},
		{"blob:https://airline.test/6f1c", "a blob: URL", "a blob: URL"},
		{"javascript:alert(1)", "a javascript: URL", "a javascript: URL"},
		{"chrome-error://chromewebdata/", "a chrome-error: URL", "a chrome-error: URL"},
		{"airline.test\n", "an unreadable URL", "an unreadable URL"},
		{"", "an unreadable URL", "an unreadable URL"},
	} {
		if got := pagetext.URL(tc.in); got != tc.url {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.url)
		}
		if got := pagetext.Host(tc.in); got != tc.host {
			t.Errorf("Host(%q) = %q, want %q", tc.in, got, tc.host)
		}
	}
}

// checkLine is what every output of Line must satisfy.
func checkLine(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Line(%q) = %q is not UTF-8", in, out)
	}
	for _, r := range out {
		if pagetext.Forbidden(r) || r != ' ' && unicode.IsSpace(r) {
			t.Fatalf("Line(%q) = %q holds %U", in, out, r)
		}
	}
	if strings.Contains(out, "  ") || strings.TrimSpace(out) != out {
		t.Fatalf("Line(%q) = %q has unfolded space", in, out)
	}
	if again := pagetext.Line(out); again != out {
		t.Fatalf("Line is not idempotent: %q -> %q -> %q", in, out, again)
	}
}

func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "a b", "\x1b[31m", "x\u0085y", "\u202e\u2066", "\xff\xfe", " \t\n ", "a\u00a0\u2028b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkLine(t, s, pagetext.Line(s))
	})
}

func FuzzURL(f *testing.F) {
	for _, s := range []string{"https://airline.test/x", "about:srcdoc", "data:text/html,\x1b", "blob:https://a/b", "http://[::1]:80/", "ht\ttp://x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{pagetext.URL(s), pagetext.Host(s)} {
			checkLine(t, s, out)
			if strings.HasPrefix(strings.ToLower(s), "data:") && out != "a data: URL" {
				t.Fatalf("a data: URL %q printed as %q", s, out)
			}
		}
		if r := pagetext.Role(s); r != "generic" && r != strings.ToLower(strings.TrimSpace(s)) {
			t.Fatalf("Role(%q) = %q", s, r)
		}
	})
}
