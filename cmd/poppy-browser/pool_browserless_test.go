//go:build pooltest

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/internal/poolproc"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestBrowserlessPool is make pool-test's (deploy/browserless/pool-test.sh):
// POOL_START starts a Browserless pool in the foreground on POOL_PORT with
// POOL_TOKEN. One `mcp --http` process serves 4 sessions through it (the
// demo airline's host flags in launch=); the pool is killed and started
// again; the old sessions answer browser_gone, a new one works, and
// /metrics counts the reattach.
func TestBrowserlessPool(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	start, base, token, cdpURL, marker := poolSetup(t)
	stopPool := startPool(t, ctx, start, base+"/json/version?token="+url.QueryEscape(token), "CONCURRENT=4")
	rt := startPoolRuntime(t, ctx, cdpURL)
	connect, stderr, endpoint, mcpToken := rt.connect, &rt.stderr, rt.endpoint, rt.token
	var old []*mcp.ClientSession
	for i := range 4 {
		cs := connect(t, ctx)
		if r, _ := callTool(t, ctx, cs, "browser_navigate", map[string]any{"url": testsite.BookingURL()}); r["outcome"] != "done" {
			t.Fatalf("session %d through the pool: %v\n%s", i, r, stderr.String())
		}
		old = append(old, cs)
	}
	stopPool()
	killMarked(marker) // as a pool's host going away takes its browsers
	for i, cs := range old {
		if r, _ := callTool(t, ctx, cs, "browser_snapshot", nil); r["reason"] != "browser_gone" {
			t.Errorf("session %d after the pool went: %v, want browser_gone", i, r)
		}
	}
	startPool(t, ctx, start, base+"/json/version?token="+url.QueryEscape(token), "CONCURRENT=4")
	began := time.Now()
	if r, _ := callTool(t, ctx, connect(t, ctx), "browser_navigate", map[string]any{"url": testsite.BookingURL()}); r["outcome"] != "done" {
		t.Fatalf("a new session after the pool restarted: %v\n%s", r, stderr.String())
	}
	t.Logf("a new session navigated %s after the pool was back", time.Since(began).Round(time.Millisecond))
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(endpoint, "/")+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+mcpToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !regexp.MustCompile(`(?m)^poppy_browser_reattaches_total [1-9]`).Match(body) {
		t.Errorf("/metrics does not count the reattach:\n%s", body)
	}
	if strings.Contains(stderr.String(), token) {
		t.Error("stderr shows the pool's token")
	}
}

// poolSetup reads make pool-test's environment (the test skips without
// it), starts the demo airline and returns the pool's start command, base
// URL and token, and a connect URL with the airline's host flags and a
// marker in launch=: the pool starts its browsers in process groups of
// their own, and the marker (a flag Chromium ignores) lets the test's
// cleanup find and end them.
func poolSetup(t *testing.T) (start, base, token, cdpURL, marker string) {
	start, port, token := os.Getenv("POOL_START"), os.Getenv("POOL_PORT"), os.Getenv("POOL_TOKEN")
	if start == "" || port == "" || token == "" {
		t.Skip("POOL_START, POOL_PORT and POOL_TOKEN come from deploy/browserless/pool-test.sh")
	}
	site, _, err := startDemoSite()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	marker = fmt.Sprintf("--poppy-pool-test=%d", time.Now().UnixNano())
	launch, _ := json.Marshal(map[string]any{"args": append(site.BrowserArgs(), marker)})
	t.Cleanup(func() { killMarked(marker) })
	base = "http://127.0.0.1:" + port
	cdpURL = base + "/?token=" + url.QueryEscape(token) + "&timeout=600000&launch=" + url.QueryEscape(string(launch))
	return start, base, token, cdpURL, marker
}

// startPoolRuntime starts an `mcp --http` runtime attached to cdpURL, in
// this test process (a connection of its own to the pool, as a separate
// process's); stop ends it and closes its websocket to the pool.
func startPoolRuntime(t *testing.T, ctx context.Context, cdpURL string) *httpRuntime {
	t.Helper()
	return startHTTPRuntime(t, ctx, []string{"mcp", "--company", testsite.CompanyDomain, "--no-join", "--http", "127.0.0.1:0",
		"--cdp-url", cdpURL, "--live-url-file", ""})
}

// connect opens an MCP session on the runtime; the test's cleanup closes it.
func (rt *httpRuntime) connect(t *testing.T, ctx context.Context) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "pool-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: rt.endpoint,
		HTTPClient: &http.Client{Transport: bearer{rt.token, http.DefaultTransport}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// startPool runs the pool (poolproc.Start) until it answers ready, stopped
// at the test's cleanup, and returns what stops it sooner.
func startPool(t *testing.T, ctx context.Context, start, ready string, env ...string) (kill func()) {
	t.Helper()
	var out syncBuffer
	p, err := poolproc.Start(ctx, start, ready, &out, env...)
	if err != nil {
		t.Fatalf("%v; it said:\n%s", err, out.String())
	}
	t.Cleanup(p.Stop)
	return p.Stop
}

// killMarked kills every process whose command line holds marker.
func killMarked(marker string) {
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if cmdline, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline")); err == nil && bytes.Contains(cmdline, []byte(marker)) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
