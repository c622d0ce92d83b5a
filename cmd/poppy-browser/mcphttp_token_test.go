package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPHTTPTokenFromEnvironment: a token set in POPPY_MCP_TOKEN is never
// printed, and the Bearer scheme is matched in any case.
func TestMCPHTTPTokenFromEnvironment(t *testing.T) {
	const token = "planted-token-3c9e1f"
	t.Setenv("POPPY_MCP_TOKEN", token)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "1"}, nil)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() { done <- serveMCPListener(ctx, srv, l, &stderr) }()
	waitUntil(t, ctx, "the endpoint is announced", func() bool { return strings.Contains(stderr.String(), "Authorization: Bearer") })
	endpoint := "http://" + l.Addr().String() + "/"
	status := func(auth string) int {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, auth := range []string{"Bearer " + token, "bearer " + token, "BEARER " + token} {
		if got := status(auth); got == http.StatusUnauthorized {
			t.Errorf("%q: refused", strings.Replace(auth, token, "TOKEN", 1))
		}
	}
	for _, auth := range []string{"Basic " + token, "Bearer" + token, "Bearer " + token + "x", token} {
		if got := status(auth); got != http.StatusUnauthorized {
			t.Errorf("%q: HTTP %d, want 401", strings.Replace(auth, token, "TOKEN", 1), got)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
	if strings.Contains(stderr.String(), token) {
		t.Errorf("the token from the environment was printed: %q", stderr.String())
	}
	if strings.Contains(stderr.String(), "WARNING") {
		t.Errorf("a loopback listener was warned about: %q", stderr.String())
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
		warnIfExposed(&b, "--http", c.addr)
		out := b.String()
		if got := strings.HasPrefix(out, "WARNING: --http listens on "+c.addr); got != c.warn || strings.Count(out, "\n") > 1 {
			t.Errorf("%q: printed %q, want a warning: %v", c.addr, out, c.warn)
		}
		if c.warn && !strings.Contains(out, "plain HTTP") {
			t.Errorf("%q: the warning does not say why: %q", c.addr, out)
		}
	}
}
