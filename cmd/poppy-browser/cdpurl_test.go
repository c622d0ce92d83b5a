package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestCDPURLAttach: poppy-browser mcp --cdp-url drives a Chromium started
// separately (the browser pool's case): tools work through it, two
// runtimes attached to it keep their own tabs; when that
// browser goes away, the next call fails at once, saying the browser is
// gone, and every later call does so too, even once a new browser listens
// at the same address (the Session's state lived in the old browser; only
// a new session reattaches, see supervisor's TestReattach*).
func TestCDPURLAttach(t *testing.T) {
	bin := buildBinary(t) // first: the build is slow on a loaded machine
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	site, _, err := startDemoSite()
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	port := freePort(t)
	// A Chromium apart from poppy-browser, as a pool runs one.
	chromium := browsertest.StartChromium(t, ctx, &browsertest.ChromiumOptions{Port: port, Args: site.BrowserArgs()})
	wsURL := chromium.URL
	httpURL := fmt.Sprintf("http://127.0.0.1:%d", port)

	var first *mcp.ClientSession
	for i, cdpURL := range []string{wsURL, httpURL} { // both forms a pool hands out
		cmd := exec.Command(bin, "mcp", "--company", testsite.CompanyDomain, "--no-join", "--cdp-url", cdpURL,
			"--live-url-file", "")
		var stderr syncBuffer
		cmd.Stderr = &stderr
		client := mcp.NewClient(&mcp.Implementation{Name: "cdp-url-test", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("connect with --cdp-url %s: %v\n%s", cdpURL, err, stderr.String())
		}
		defer cs.Close()
		target := []string{testsite.BookingURL(), testsite.CheckInURL()}[i]
		if r, _ := callTool(t, ctx, cs, "browser_navigate", map[string]any{"url": target}); r["outcome"] != "done" {
			t.Fatalf("navigate through the separate browser: %v\n%s", r, stderr.String())
		}
		if r, _ := callTool(t, ctx, cs, "browser_snapshot", map[string]any{"since": 0}); r["outcome"] != "done" || !strings.Contains(fmt.Sprint(r["text"]), "Check in") {
			t.Fatalf("snapshot through the separate browser: %v", r)
		}
		if i == 0 {
			first = cs
			continue // the second attaches beside the first
		}
		// Each attached runtime has a browser context of its own: the
		// second's navigation left the first's tab where it was.
		if r, _ := callTool(t, ctx, first, "browser_snapshot", nil); fmt.Sprint(r["page"].(map[string]any)["url"]) != testsite.BookingURL() {
			t.Errorf("the first runtime's page moved with the second's: %v", r["page"])
		}
		chromium.Kill()
		for _, phase := range []string{"after the browser went away", "after a new browser came to the same address"} {
			if phase != "after the browser went away" {
				browsertest.StartChromium(t, ctx, &browsertest.ChromiumOptions{Port: port, Args: site.BrowserArgs()})
			}
			start := time.Now()
			r, isErr := callTool(t, ctx, cs, "browser_snapshot", nil)
			msg := strings.ToLower(fmt.Sprint(r["message"]))
			if r["outcome"] != "failed" || !isErr || !strings.Contains(msg, "browser") {
				t.Errorf("%s: %v (isError %v), want failed naming the browser", phase, r, isErr)
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("%s: the call took %s", phase, d)
			}
			t.Logf("%s: %s %s: %s", phase, r["outcome"], r["reason"], r["message"])
		}
	}
}

// callTool calls a tool and returns its structured content and isError.
func callTool(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, in map[string]any) (map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: in})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return structured(name, res), res.IsError
}

// structured is a tool result's structured content, with a snapshot's
// text (which goes out once, as the text content) under "text".
func structured(name string, res *mcp.CallToolResult) map[string]any {
	var sc map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &sc)
	if name == "browser_snapshot" && sc != nil && sc["text"] == nil {
		sc["text"] = contentText(res)
	}
	return sc
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
