package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/testsite"
)

// jsonRuntime is an `mcp --http --log-format json` runtime run in the
// test's process; its endpoint is read from its JSON log.
type jsonRuntime struct {
	stderr   syncBuffer
	endpoint string
	stop     func() error
}

var endpointInText = regexp.MustCompile(`at (http://\S+/) with the header`)

func startJSONRuntime(t *testing.T, ctx context.Context, args []string) *jsonRuntime {
	t.Helper()
	rt := &jsonRuntime{}
	rt.stop = runInTest(t, ctx, args, &rt.stderr)
	waitUntil(t, ctx, "the endpoint is in the JSON log", func() bool {
		for _, rec := range jsonRecords(t, rt.stderr.String()) {
			if m := endpointInText.FindStringSubmatch(fmt.Sprint(rec["text"])); m != nil {
				rt.endpoint = m[1]
				return true
			}
		}
		return false
	})
	return rt
}

// jsonRecords parses every complete line of out as a JSON object, and
// fails the test on a line that is not one.
func jsonRecords(t *testing.T, out string) []map[string]any {
	t.Helper()
	var recs []map[string]any
	lines := strings.Split(out, "\n")
	for _, l := range lines[:len(lines)-1] { // the last is partial or empty
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("a line on stderr is not a JSON record: %q", l)
		}
		recs = append(recs, rec)
	}
	return recs
}

func (rt *jsonRuntime) connect(t *testing.T, ctx context.Context, token string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "model", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: rt.endpoint,
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestJSONLogsCarryNoSecret: with --log-format json, every line on stderr
// is a JSON record, and none carries the MCP bearer token or a live view
// token, while the records still say where the endpoint and each
// session's live view are; a random token, which would have to be
// printed, is refused with a usage error naming POPPY_MCP_TOKEN.
func TestJSONLogsCarryNoSecret(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	base := []string{"mcp", "--company", testsite.CompanyDomain, "--no-join", "--http", "127.0.0.1:0", "--log-format", "json", "--live-url-file", ""}

	t.Setenv("POPPY_MCP_TOKEN", "")
	var stderr bytes.Buffer
	err := run(ctx, base, strings.NewReader(""), io.Discard, &stderr)
	if err == nil || !strings.Contains(err.Error(), "POPPY_MCP_TOKEN") || exitCode(err) != 2 {
		t.Errorf("--http --log-format json without POPPY_MCP_TOKEN: %v (exit %d), want a usage error naming it", err, exitCode(err))
	}

	const token = "mcp-secret-4f7a9c21"
	t.Setenv("POPPY_MCP_TOKEN", token)
	rt := startJSONRuntime(t, ctx, base)
	cs := rt.connect(t, ctx, token)
	if r, _ := callTool(t, ctx, cs, "browser_control_status", nil); r["controller"] != "agent" {
		t.Fatalf("status: %v", r)
	}
	liveLine := regexp.MustCompile(`live view for the User of MCP session \S+: http://localhost:\d+/live`)
	waitUntil(t, ctx, "the session's live view is in the log", func() bool { return liveLine.MatchString(rt.stderr.String()) })
	if err := rt.stop(); err != nil {
		t.Errorf("mcp: %v", err)
	}
	out := rt.stderr.String()
	jsonRecords(t, out)
	if strings.Contains(out, token) {
		t.Errorf("the bearer token is on stderr:\n%s", out)
	}
	if strings.Contains(out, "token=") {
		t.Errorf("a live view token is on stderr:\n%s", out)
	}
}

// TestCDPURLPathTokenRedacted: a --cdp-url whose path carries the pool's
// token (as /devtools/browser/TOKEN) reaches no log, in either format, no
// tool result and no /metrics, when the attach fails.
func TestCDPURLPathTokenRedacted(t *testing.T) {
	const secretPart = "cdp-secret-9d3b1e"
	const token = "mcp-token-for-cdp-test"
	t.Setenv("POPPY_MCP_TOKEN", token)
	for _, format := range []string{"json", "text"} {
		t.Run(format, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			cdpURL := fmt.Sprintf("ws://127.0.0.1:%d/devtools/browser/%s", freePort(t), secretPart)
			args := []string{"mcp", "--company", testsite.CompanyDomain, "--no-join", "--http", "127.0.0.1:0", "--log-format", format,
				"--live-url-file", "", "--cdp-url", cdpURL}
			var stderr *syncBuffer
			var endpoint string
			var stop func() error
			if format == "json" {
				rt := startJSONRuntime(t, ctx, args)
				stderr, endpoint, stop = &rt.stderr, rt.endpoint, rt.stop
			} else {
				rt := startHTTPRuntime(t, ctx, args)
				stderr, endpoint, stop = &rt.stderr, rt.endpoint, rt.stop
			}
			c := mcp.NewClient(&mcp.Implementation{Name: "model", Version: "1"}, nil)
			cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint,
				HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}, MaxRetries: -1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			var seen []string
			for _, tool := range []string{"browser_control_status", "browser_snapshot"} {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool})
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				b, _ := json.Marshal(res)
				seen = append(seen, string(b))
			}
			if !strings.Contains(seen[0], "browser_error") {
				t.Errorf("status without a browser: %s, want browser_error", seen[0])
			}
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"metrics", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			metrics, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			waitUntil(t, ctx, "the failed attach is logged", func() bool { return strings.Contains(stderr.String(), "attach") })
			cs.Close()
			if err := stop(); err != nil {
				t.Errorf("mcp: %v", err)
			}
			seen = append(seen, string(metrics), stderr.String())
			for i, s := range seen {
				if strings.Contains(s, secretPart) {
					t.Errorf("output %d carries the --cdp-url's path token: %s", i, s)
				}
			}
			if !strings.Contains(stderr.String(), "/devtools/browser/") {
				t.Errorf("the log does not say which endpoint failed:\n%s", stderr.String())
			}
		})
	}
}

// exitCode is the exit status main gives err.
func exitCode(err error) int {
	var coded interface{ ExitCode() int }
	switch {
	case errors.As(err, &coded):
		return coded.ExitCode()
	case err != nil:
		return 1
	}
	return 0
}
