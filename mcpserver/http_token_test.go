package mcpserver

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/gate/gatetest"
)

// TestHTTPTokenFromEnvironment: a token the User set is never printed, and
// the Bearer scheme is matched in any case.
func TestHTTPTokenFromEnvironment(t *testing.T) {
	const token = "planted-token-3c9e1f"
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	srv := NewServer(Fixed(gatetest.New().Gate), &Options{MaxSessions: -1})
	h := serveHTTP(t, ctx, srv, HTTPOptions{Token: token, TokenFromEnv: "$POPPY_MCP_TOKEN"})
	for _, auth := range []string{"Bearer " + token, "bearer " + token, "BEARER " + token} {
		if got, _ := h.post(t, ctx, auth, "", initializeBody); got == http.StatusUnauthorized {
			t.Errorf("%q: refused", strings.Replace(auth, token, "TOKEN", 1))
		}
	}
	for _, auth := range []string{"Basic " + token, "Bearer" + token, "Bearer " + token + "x", token} {
		if got, _ := h.post(t, ctx, auth, "", initializeBody); got != http.StatusUnauthorized {
			t.Errorf("%q: HTTP %d, want 401", strings.Replace(auth, token, "TOKEN", 1), got)
		}
	}
	out := h.stderr.String()
	if strings.Contains(out, token) {
		t.Errorf("the token from the environment was printed: %q", out)
	}
	if !strings.Contains(out, "Bearer $POPPY_MCP_TOKEN") {
		t.Errorf("the announcement does not name the variable: %q", out)
	}
	if strings.Contains(out, "WARNING") {
		t.Errorf("a loopback listener was warned about: %q", out)
	}
}

func TestWarnIfExposed(t *testing.T) {
	for _, c := range []struct {
		addr string
		warn bool
	}{
		{"127.0.0.1:0", false}, {"[::1]:8080", false}, {"localhost:9", false}, {"127.0.0.2:1", false}, {"", false},
		{"0.0.0.0:8080", true}, {":8080", true}, {"[::]:1", true}, {"192.168.1.20:443", true}, {"example.com:80", true},
	} {
		var b bytes.Buffer
		WarnIfExposed(&b, "--http", c.addr)
		out := b.String()
		if got := strings.HasPrefix(out, "WARNING: --http listens on "+c.addr); got != c.warn || strings.Count(out, "\n") > 1 {
			t.Errorf("%q: printed %q, want a warning: %v", c.addr, out, c.warn)
		}
		if c.warn && !strings.Contains(out, "plain HTTP") {
			t.Errorf("%q: the warning does not say why: %q", c.addr, out)
		}
	}
}
