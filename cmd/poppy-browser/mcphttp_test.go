package main

import (
	"context"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds the token to every request of an MCP client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestMCPHTTPNeedsTokenAndOrigin: the Streamable HTTP endpoint answers only
// a client with the run's token, and never a page from another origin.
func TestMCPHTTPNeedsTokenAndOrigin(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "ping", Description: "answers pong"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, struct{ Pong bool }, error) {
		return nil, struct{ Pong bool }{true}, nil
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() { done <- serveMCPListener(ctx, srv, l, &stderr) }()
	var token string
	waitUntil(t, ctx, "the endpoint is announced", func() bool {
		m := regexp.MustCompile(`Authorization: Bearer (\S+)`).FindStringSubmatch(stderr.String())
		if m != nil {
			token = m[1]
		}
		return m != nil
	})
	endpoint := "http://" + l.Addr().String() + "/"

	// With the token, a real MCP client works.
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connecting with the token: %v", err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ping"}); err != nil {
		t.Fatalf("calling with the token: %v", err)
	}
	cs.Close()

	post := func(auth, origin string) int {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
			req.Header.Set("Sec-Fetch-Site", "cross-site")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		name         string
		auth, origin string
		want         int
	}{
		{"no token", "", "", http.StatusUnauthorized},
		{"wrong token", "Bearer " + token[:len(token)-1] + "x", "", http.StatusUnauthorized},
		{"token from a page on another origin", "Bearer " + token, "https://partner.test", http.StatusForbidden},
	} {
		if got := post(c.auth, c.origin); got != c.want {
			t.Errorf("%s: HTTP %d, want %d", c.name, got, c.want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
}
