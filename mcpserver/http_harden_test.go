package mcpserver

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/gate/gatetest"
)

// request sends one request to the endpoint (path added) with the given
// headers and returns its status.
func (h *httpServer) request(t *testing.T, ctx context.Context, method, path string, header map[string]string, body string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(h.endpoint, "/")+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestHTTPOriginBeforeToken: a request with a foreign Origin is refused
// with 403 whatever its method (GET opening the stream, DELETE ending a
// session, POST, GET /metrics) and whether or not it carries the token:
// the Origin is checked first, so a page learns nothing about the token.
// The session such a request names goes on; the server's own origin and
// no Origin at all pass.
func TestHTTPOriginBeforeToken(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	h := serveHTTP(t, ctx, NewServer(Fixed(gatetest.New().Gate), nil), HTTPOptions{})
	cs, err := h.client(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	own := strings.TrimSuffix(h.endpoint, "/")
	for _, origin := range []string{"http://evil.example", "null", "http://127.0.0.1", "https://" + strings.TrimPrefix(own, "http://")} {
		for _, withToken := range []bool{true, false} {
			for _, c := range []struct{ method, path, body string }{
				{http.MethodGet, "/", ""},
				{http.MethodDelete, "/", ""},
				{http.MethodPost, "/", initializeBody},
				{http.MethodGet, "/metrics", ""},
			} {
				hd := map[string]string{"Origin": origin, sessionHeader: cs.ID(), "Accept": "application/json, text/event-stream",
					"Content-Type": "application/json", "Mcp-Protocol-Version": "2025-06-18"}
				if withToken {
					hd["Authorization"] = "Bearer " + h.token
				}
				if got := h.request(t, ctx, c.method, c.path, hd, c.body); got != http.StatusForbidden {
					t.Errorf("%s %s with Origin %s (token: %v): HTTP %d, want 403", c.method, c.path, origin, withToken, got)
				}
			}
		}
	}
	// The session the refused DELETEs named is still there.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_control_status"}); err != nil {
		t.Errorf("the session after refused DELETEs: %v", err)
	}
	// The server's own origin passes, and so does no Origin (a non-browser client).
	for _, origin := range []string{own, ""} {
		hd := map[string]string{"Authorization": "Bearer " + h.token}
		if origin != "" {
			hd["Origin"] = origin
		}
		if got := h.request(t, ctx, http.MethodGet, "/metrics", hd, ""); got != http.StatusOK {
			t.Errorf("GET /metrics with Origin %q: HTTP %d, want 200", origin, got)
		}
	}
	if got := h.request(t, ctx, http.MethodGet, "/metrics", nil, ""); got != http.StatusUnauthorized {
		t.Errorf("GET /metrics without token or Origin: HTTP %d, want 401", got)
	}
}

// TestSetLevelUnknown: logging/setLevel with a level MCP does not name is
// refused with invalid params (-32602); a known level is accepted.
func TestSetLevelUnknown(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	h := serveHTTP(t, ctx, NewServer(Fixed(gatetest.New().Gate), nil), HTTPOptions{})
	cs, err := h.client(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, level := range []mcp.LoggingLevel{"verbose", "", "INFO", "trace"} {
		err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: level})
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("setLevel %q: %v, want JSON-RPC error %d", level, err, jsonrpc.CodeInvalidParams)
		}
	}
	for _, level := range []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"} {
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: level}); err != nil {
			t.Errorf("setLevel %q: %v", level, err)
		}
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_control_status"}); err != nil {
		t.Errorf("the session after the refused levels: %v", err)
	}
}

// closedWithin reports whether the server closes c within d (a read ends
// with EOF or a reset), reading and dropping what it sends first.
func closedWithin(t *testing.T, c net.Conn, d time.Duration) bool {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	return err == nil || !errors.Is(err, os.ErrDeadlineExceeded)
}

// TestHTTPClosesIdleConnections: a connection that sends nothing is closed
// within the header bound (10 s); one that was refused (no token, a
// foreign Origin) is closed right after the answer, not kept alive; an
// idle keep-alive connection is closed after the idle bound.
func TestHTTPClosesIdleConnections(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	h := serveHTTP(t, ctx, NewServer(Fixed(gatetest.New().Gate), nil), HTTPOptions{IdleTimeout: 2 * time.Second})
	addr := strings.TrimSuffix(strings.TrimPrefix(h.endpoint, "http://"), "/")
	dial := func(t *testing.T) net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	t.Run("group", func(t *testing.T) { closesIdle(t, addr, dial) })
}

func closesIdle(t *testing.T, addr string, dial func(*testing.T) net.Conn) {
	t.Run("silent", func(t *testing.T) {
		t.Parallel()
		c := dial(t)
		start := time.Now()
		if !closedWithin(t, c, DefaultReadHeaderTimeout+5*time.Second) {
			t.Errorf("a connection that sent nothing is still open after %s", time.Since(start).Round(time.Second))
		}
	})
	for _, c := range []struct{ name, req string }{
		{"no token", "POST / HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"},
		{"foreign origin", "GET / HTTP/1.1\r\nHost: " + addr + "\r\nOrigin: http://evil.example\r\n\r\n"},
		{"no token, metrics", "GET /metrics HTTP/1.1\r\nHost: " + addr + "\r\n\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			conn := dial(t)
			if _, err := io.WriteString(conn, c.req); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
				t.Fatalf("HTTP %d, want a refusal", resp.StatusCode)
			}
			if !closedWithin(t, conn, time.Second) {
				t.Errorf("the refused connection is kept alive")
			}
		})
	}
	t.Run("idle keep-alive", func(t *testing.T) {
		t.Parallel()
		conn := dial(t)
		if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: "+addr+"\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Close {
			t.Fatalf("GET /healthz: HTTP %d (close %v), want 200 kept alive", resp.StatusCode, resp.Close)
		}
		if !closedWithin(t, conn, 2*time.Second+5*time.Second) {
			t.Errorf("an idle keep-alive connection is still open past the idle bound")
		}
	})
}
