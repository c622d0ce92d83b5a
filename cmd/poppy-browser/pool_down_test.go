package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestPoolDownKeepsItsToken: `mcp --http --cdp-url` at a pool that is
// down, its URL carrying a distinctive token (and user info): every
// session's tool calls fail with browser_unavailable, each new session
// tries again (counted in /metrics), /healthz answers 200 and /readyz 503,
// the attempt is one JSON line on stderr (every line there is one), and
// the token is in no tool result, no line on stderr and no line of the
// audit log.
func TestPoolDownKeepsItsToken(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	const secret = "pool-secret-7f3a9c"
	cdpURL := fmt.Sprintf("ws://operator:%s-pw@127.0.0.1:%d/chromium?token=%s&launch=%%7B%%7D", secret, freePort(t), secret)
	auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
	args := []string{"mcp", "--company", testsite.CompanyDomain, "--no-join", "--http", "127.0.0.1:0",
		"--cdp-url", cdpURL, "--audit-log", auditPath, "--log-format", "json", "--live-url-file", ""}
	const token = "pool-down-mcp-token" // JSON logs carry no token: --http needs one set
	t.Setenv("POPPY_MCP_TOKEN", token)
	rt := startJSONRuntime(t, ctx, args) // stopped below, before the logs are read
	stderr, endpoint := &rt.stderr, rt.endpoint
	get := func(path string, auth bool) (int, string) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(endpoint, "/")+path, nil)
		if auth {
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

	var results []string
	for i := range 2 { // the second session tries the pool again
		c := mcp.NewClient(&mcp.Implementation{Name: "model", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint,
			HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		for _, call := range []struct {
			name string
			args map[string]any
		}{{"browser_navigate", map[string]any{"url": testsite.BookingURL()}}, {"browser_control_status", nil}} {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.name, Arguments: call.args})
			if err != nil {
				t.Fatalf("session %d %s: %v", i, call.name, err)
			}
			whole, _ := json.Marshal(res)
			results = append(results, string(whole))
			sc := structured(call.name, res)
			if call.name == "browser_navigate" && (sc["outcome"] != "failed" || sc["reason"] != "browser_unavailable" || !res.IsError) {
				t.Errorf("session %d navigate with the pool down: %s, want failed browser_unavailable", i, whole)
			}
			if call.name == "browser_control_status" && sc["browser_error"] == nil {
				t.Errorf("session %d status with the pool down: %s, want browser_error", i, whole)
			}
		}
	}
	if code, _ := get("/healthz", false); code != http.StatusOK {
		t.Errorf("/healthz with the pool down: %d, want 200 (the process serves)", code)
	}
	if code, body := get("/readyz", false); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz with the pool down: %d %q, want 503 (no browser can be opened; the runtime keeps trying)", code, body)
	}
	_, metrics := get("/metrics", true)
	if m := regexp.MustCompile(`(?m)^poppy_browser_attach_failures_total (\d+)$`).FindStringSubmatch(metrics); m == nil || len(m[1]) == 1 && m[1] < "2" {
		t.Errorf("/metrics: attach failures %v, want at least 2 (one per session):\n%s", m, metrics)
	}

	if err := rt.stop(); err != nil {
		t.Errorf("mcp --http: %v", err)
	}
	auditLog, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"a tool result": strings.Join(results, "\n"), "stderr": stderr.String(), "the audit log": string(auditLog)} {
		if strings.Contains(text, secret) {
			t.Errorf("%s shows the pool's token:\n%s", what, text)
		}
	}
	jsonRecords(t, stderr.String()) // every line on stderr is a JSON record
	if !strings.Contains(stderr.String(), `"msg":"browser attach failed"`) {
		t.Errorf("stderr lacks the JSON line of the failed attach:\n%s", stderr.String())
	}
	t.Logf("a tool result: %s", results[0])
}
