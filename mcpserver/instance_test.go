package mcpserver

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/gate/gatetest"
)

// TestHTTPInstance: with Options.Instance, over real HTTP, every response
// names the instance (MCP, probes, a refusal), every session id starts
// with it, a request for another instance's session gets 421 and one for
// an unknown session of ours 404 (the go-sdk's), never a session of ours;
// the live view's paths go to HTTPOptions.Live before MCP's checks.
func TestHTTPInstance(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	live := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "live view "+r.URL.Path)
	})
	h := serveHTTP(t, ctx, NewServer(Fixed(gatetest.New().Gate), &Options{Instance: "rt-7"}), HTTPOptions{Live: live})
	cs, err := h.client(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if !strings.HasPrefix(cs.ID(), "rt-7.") || len(cs.ID()) < len("rt-7.")+16 {
		t.Errorf("session id %q: want rt-7. and a random part", cs.ID())
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_control_status"}); err != nil {
		t.Fatal(err)
	}

	do := func(method, path, session, auth string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(h.endpoint, "/")+path,
			strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get(InstanceHeader), string(body)
	}
	random := strings.TrimPrefix(cs.ID(), "rt-7.")
	for _, c := range []struct {
		name, method, path, session, auth string
		want                              int
		body                              string
	}{
		{"its own session", "POST", "/", cs.ID(), h.token, http.StatusOK, "browser_snapshot"},
		{"another instance's session", "POST", "/", "rt-8." + random, h.token, http.StatusMisdirectedRequest, "not held by runtime instance rt-7"},
		{"an id without an instance", "POST", "/", random, h.token, http.StatusMisdirectedRequest, "rt-7"},
		{"an unknown session of ours", "POST", "/", "rt-7.nosuchsession", h.token, http.StatusNotFound, ""},
		{"no token", "POST", "/", cs.ID(), "", http.StatusUnauthorized, ""},
		{"the readiness probe", "GET", "/readyz", "", "", http.StatusOK, "ready"},
		{"a live view path, without the MCP token", "GET", "/live/rt-7/abc", "", "", http.StatusOK, "live view /live/rt-7/abc"},
	} {
		code, inst, body := do(c.method, c.path, c.session, c.auth)
		if code != c.want || inst != "rt-7" || !strings.Contains(body, c.body) {
			t.Errorf("%s: %d, instance %q, %q; want %d from rt-7 with %q", c.name, code, inst, body, c.want, c.body)
		}
	}
}
