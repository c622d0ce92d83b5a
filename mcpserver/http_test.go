package mcpserver

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/gate/gatetest"
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

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// waitUntil polls cond until it holds or ctx ends.
func waitUntil(t testing.TB, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting until %s", what)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// httpServer is a Server serving Streamable HTTP on loopback for one test.
type httpServer struct {
	endpoint, token string
	stderr          *syncBuffer
	done            chan error
}

// serveHTTP serves srv with o (Messages set to a buffer) until the test
// ends, and returns the endpoint and the token it announced.
func serveHTTP(t testing.TB, ctx context.Context, srv *Server, o HTTPOptions) *httpServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &httpServer{endpoint: "http://" + l.Addr().String() + "/", stderr: &syncBuffer{}, done: make(chan error, 1), token: o.Token}
	o.Messages = h.stderr
	sctx, stop := context.WithCancel(ctx)
	go func() { h.done <- srv.ServeHTTP(sctx, l, &o) }()
	t.Cleanup(func() {
		stop()
		select {
		case err := <-h.done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("the HTTP server did not stop within 10s")
		}
	})
	waitUntil(t, ctx, "the endpoint is announced", func() bool {
		m := regexp.MustCompile(`Authorization: Bearer (\S+)`).FindStringSubmatch(h.stderr.String())
		if m != nil && h.token == "" {
			h.token = m[1]
		}
		return m != nil
	})
	return h
}

// client connects a go-sdk client over Streamable HTTP with the token.
func (h *httpServer) client(ctx context.Context, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, opts)
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: h.endpoint,
		HTTPClient: &http.Client{Transport: bearer{h.token, http.DefaultTransport}}, MaxRetries: -1}, nil)
}

// post sends one raw JSON-RPC body and returns the status and the body.
func (h *httpServer) post(t testing.TB, ctx context.Context, auth, origin, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.endpoint, strings.NewReader(body))
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
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`

// fakeRuntimes opens a gate over a fake page per session and records how
// each ended.
type fakeRuntimes struct {
	mu       sync.Mutex
	fixtures map[string]*gatetest.Fixture
	ended    map[string]string // session id -> reason
}

func newFakeRuntimes() *fakeRuntimes {
	return &fakeRuntimes{fixtures: map[string]*gatetest.Fixture{}, ended: map[string]string{}}
}

type fakeRuntime struct {
	f  *fakeRuntimes
	id string
	g  *gate.Gate
}

func (r fakeRuntime) Gate() *gate.Gate { return r.g }
func (r fakeRuntime) Close(_ context.Context, reason string) error {
	r.f.mu.Lock()
	r.f.ended[r.id] = reason
	r.f.mu.Unlock()
	return nil
}

func (f *fakeRuntimes) open(_ context.Context, id string) (Runtime, error) {
	fx := gatetest.New()
	f.mu.Lock()
	f.fixtures[id] = fx
	f.mu.Unlock()
	return fakeRuntime{f, id, fx.Gate}, nil
}

func (f *fakeRuntimes) endedAs(id string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.ended[id]
	return r, ok
}

func (f *fakeRuntimes) fixture(id string) *gatetest.Fixture {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fixtures[id]
}

// TestHTTPNeedsTokenAndOrigin: the Streamable HTTP endpoint answers only
// a client with the run's token, and never a page from another origin.
func TestHTTPNeedsTokenAndOrigin(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	h := serveHTTP(t, ctx, NewServer(Fixed(gatetest.New().Gate), nil), HTTPOptions{})

	// With the token, a real MCP client works.
	cs, err := h.client(ctx, nil)
	if err != nil {
		t.Fatalf("connecting with the token: %v", err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_control_status"}); err != nil {
		t.Fatalf("calling with the token: %v", err)
	}
	cs.Close()

	for _, c := range []struct {
		name         string
		auth, origin string
		want         int
	}{
		{"no token", "", "", http.StatusUnauthorized},
		{"wrong token", "Bearer " + h.token[:len(h.token)-1] + "x", "", http.StatusUnauthorized},
		{"token from a page on another origin", "Bearer " + h.token, "https://partner.test", http.StatusForbidden},
	} {
		if got, _ := h.post(t, ctx, c.auth, c.origin, initializeBody); got != c.want {
			t.Errorf("%s: HTTP %d, want %d", c.name, got, c.want)
		}
	}
}
