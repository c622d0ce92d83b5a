package mcpserver

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
)

// TestProbesAndMetrics: over real HTTP, /healthz and /readyz answer
// without the token and say nothing but their word; /readyz turns 503
// when the runtime is not ready or the sessions are at their cap;
// /metrics needs the token and counts sessions, tool calls by tool and
// outcome with their latency, offers, and the runtime's own collectors.
func TestProbesAndMetrics(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var ready atomic.Bool
	ready.Store(true)
	attaches := prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "poppy_browser_attaches_total", Help: "test"}, func() float64 { return 3 })
	h := serveHTTP(t, ctx, NewServer(newFakeRuntimes().open, &Options{MaxSessions: 1}),
		HTTPOptions{Ready: ready.Load, Collectors: []prometheus.Collector{attaches}})
	base := strings.TrimSuffix(h.endpoint, "/")
	get := func(path, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	probe := func(when, path string, wantStatus int, wantBody string) {
		t.Helper()
		if code, body := get(path, ""); code != wantStatus || body != wantBody+"\n" {
			t.Errorf("%s: GET %s without the token: %d %q, want %d %q", when, path, code, body, wantStatus, wantBody)
		}
	}
	probe("at start", "/healthz", http.StatusOK, "ok")
	probe("at start", "/readyz", http.StatusOK, "ready")
	ready.Store(false)
	probe("with the runtime not ready", "/readyz", http.StatusServiceUnavailable, "not ready")
	probe("with the runtime not ready", "/healthz", http.StatusOK, "ok")
	ready.Store(true)

	if code, body := get("/metrics", ""); code != http.StatusUnauthorized || strings.Contains(body, "poppy_") {
		t.Errorf("GET /metrics without the token: %d %q, want 401 and no metrics", code, body)
	}

	cs, err := h.client(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, call := range []struct {
		name string
		args map[string]any
	}{
		{"browser_control_status", nil},
		{"browser_request_user_control", map[string]any{"reason": "pay"}},
		{"browser_click", map[string]any{"ref": "e99"}}, // no such ref: denied
	} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.name, Arguments: call.args}); err != nil {
			t.Fatalf("%s: %v", call.name, err)
		}
	}
	probe("with the one session of the cap open", "/readyz", http.StatusServiceUnavailable, "not ready")

	var body string
	waitUntil(t, ctx, "the offer is counted in /metrics", func() bool {
		_, body = get("/metrics", h.token)
		return strings.Contains(body, `poppy_control_events_total{event="offer"} 1`)
	})
	for _, want := range []string{
		"poppy_mcp_sessions_open 1",
		`poppy_tool_calls_total{outcome="done",tool="browser_control_status"} 1`,
		`poppy_tool_calls_total{outcome="done",tool="browser_request_user_control"} 1`,
		`poppy_tool_calls_total{outcome="denied",tool="browser_click"} 1`,
		`poppy_tool_call_seconds_count{tool="browser_click"} 1`,
		"poppy_browser_attaches_total 3",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, h.token) {
		t.Error("/metrics shows the token")
	}
}
