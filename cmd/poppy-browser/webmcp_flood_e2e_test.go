package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/mcpserver"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// lockedBuffer is a strings.Builder safe for the server's writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// heapAfterGC is the live heap of this process (the runtime is in it).
func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestWebMCPFloodKeepsTheSession: a page that registers 5,000 tools with
// long descriptions and large schemas (some 18 MB of words) is listed over
// Streamable HTTP to a go-sdk client a bounded part at a time: each result
// is far under the client's 16 MiB frame limit, says how many tools it
// left out and how to read on (from), the next part reads on, the session
// lives on (a later call answers), and the runtime's memory stays bounded.
func TestWebMCPFloodKeepsTheSession(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	d := startDemo(t, ctx)
	if r := d.sv.Gate().Do(ctx, gate.Navigate{URL: testsite.WebMCPFixtureURL("flood.html")}); r.Outcome != spec.OutcomeDone {
		t.Fatalf("navigate: %+v", r)
	}
	heapBefore := heapAfterGC()

	srv := mcpserver.NewServer(func(context.Context, string) (mcpserver.Runtime, error) {
		return sessionRuntime{d.sv.Session()}, nil
	}, nil)
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	messages := &lockedBuffer{}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.ServeHTTP(sctx, l, &mcpserver.HTTPOptions{Messages: messages}) }()
	t.Cleanup(func() {
		stop()
		<-served
	})
	var token string
	waitUntil(t, ctx, "the endpoint is announced", func() bool {
		m := regexp.MustCompile(`Authorization: Bearer (\S+)`).FindStringSubmatch(messages.String())
		if m != nil {
			token = m[1]
		}
		return m != nil
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "flood", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + l.Addr().String() + "/",
		HTTPClient: &http.Client{Transport: bearerTransport{token}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	type listed struct {
		Outcome string `json:"outcome"`
		Message string `json:"message"`
		Tools   []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
		LeftOut int `json:"left_out"`
	}
	list := func(from int) (listed, int) {
		t.Helper()
		args := map[string]any{}
		if from > 0 {
			args["from"] = from
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: spec.ToolWebMCPList, Arguments: args})
		if err != nil {
			t.Fatalf("browser_webmcp_list from %d: %v", from, err)
		}
		raw, _ := json.Marshal(res)
		var out listed
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		return out, len(raw)
	}
	var first listed
	var size int
	// The page registers its tools in one loop, but their events reach the
	// runtime over time: wait for all 5,000 (kept or counted as dropped).
	waitUntil(t, ctx, "the page's 5,000 tools to be registered", func() bool {
		first, size = list(0)
		return len(first.Tools)+first.LeftOut == 5000
	})
	if size > 2<<20 || len(first.Tools) == 0 || len(first.Tools) > 200 {
		t.Errorf("the first list is %d bytes with %d tools, want at most 2 MB and 1 to 200 tools", size, len(first.Tools))
	}
	next := len(first.Tools) + 1
	if !strings.Contains(first.Message, fmt.Sprintf("from=%d", next)) || first.Tools[0].Name != "tool_0" {
		t.Errorf("the first list says %q and starts with %q; want it to start with tool_0 and say to read on from %d", first.Message, first.Tools[0].Name, next)
	}
	second, size := list(next)
	if size > 2<<20 || len(second.Tools) == 0 || second.Tools[0].Name != fmt.Sprintf("tool_%d", next-1) {
		t.Errorf("the second list is %d bytes and starts with %+v, want tool_%d", size, second.Tools, next-1)
	}
	if second.LeftOut != first.LeftOut {
		t.Errorf("left_out is %d then %d, want the same count (5,000 less what one list shows)", first.LeftOut, second.LeftOut)
	}
	// The session lives on.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: spec.ToolControlStatus}); err != nil {
		t.Errorf("the session did not live on: %v", err)
	}
	if grown := int64(heapAfterGC()) - int64(heapBefore); grown > 128<<20 {
		t.Errorf("the runtime's heap grew by %d MB listing the tools, want under 128 MB", grown>>20)
	}
}
