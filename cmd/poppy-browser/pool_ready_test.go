package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// fakePool stands where a browser pool would: a TCP port in front of a
// real Chromium's DevTools. It forwards each connection after hold (a
// pool's queue: connected, no answer yet), or holds them all (hold < 0:
// every browser busy), and can go down (its listener and connections
// closed, as a pool that died) and come back on the same port. make test
// has no Browserless; make pool-test and fleet-test run the real one.
type fakePool struct {
	t      *testing.T
	target string // Chromium's host:port
	addr   string // ours

	mu    sync.Mutex
	hold  time.Duration
	ln    net.Listener
	conns map[net.Conn]struct{}
}

func newFakePool(t *testing.T, target string, hold time.Duration) *fakePool {
	p := &fakePool{t: t, target: target, hold: hold, conns: map[net.Conn]struct{}{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.down)
	return p
}

func (p *fakePool) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			p.conns[c] = struct{}{}
			hold := p.hold
			p.mu.Unlock()
			go p.forward(c, hold)
		}
	}()
}

func (p *fakePool) forward(c net.Conn, hold time.Duration) {
	defer c.Close()
	if hold < 0 {
		_, _ = io.Copy(io.Discard, c) // queued for good: reads, never answers
		return
	}
	if hold > 0 { // the pool's queue
		timer := time.NewTimer(hold)
		<-timer.C
	}
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.conns[up] = struct{}{}
	p.mu.Unlock()
	go func() { _, _ = io.Copy(up, c); up.Close() }()
	_, _ = io.Copy(c, up)
	up.Close()
}

// down closes the listener and every connection, as a pool that died.
func (p *fakePool) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

// up listens again on the same port.
func (p *fakePool) up() {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.serve(ln)
}

// wsURL is Chromium's DevTools websocket URL by way of the pool.
func (p *fakePool) wsURL(chromiumURL string) string {
	u, err := url.Parse(chromiumURL)
	if err != nil {
		p.t.Fatal(err)
	}
	u.Host = p.addr
	return u.String()
}

// TestReadyzFollowsThePool: `mcp --http --cdp-url` through a pool that
// dies: /readyz turns 503 within a few seconds while /healthz stays 200,
// the old session answers browser_gone, and once the pool is back /readyz
// turns 200 by itself and a new session works. A pool that queues the
// connection is waited for up to --attach-timeout: one that answers
// within it serves the session, one that does not is reported as a pool
// that queued and did not answer in time.
func TestReadyzFollowsThePool(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	site, _, err := startDemoSite()
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	chromium := browsertest.StartChromium(t, ctx, &browsertest.ChromiumOptions{Args: site.BrowserArgs()})
	target, err := url.Parse(chromium.URL)
	if err != nil {
		t.Fatal(err)
	}
	runtime := func(pool *fakePool, attachTimeout string) (*httpRuntime, func(string) int, func() *demo) {
		args := []string{"mcp", "--company", testsite.CompanyDomain, "--no-join", "--http", "127.0.0.1:0",
			"--cdp-url", pool.wsURL(chromium.URL), "--attach-timeout", attachTimeout, "--live-url-file", ""}
		rt := startHTTPRuntime(t, ctx, args)
		probe := func(path string) int {
			t.Helper()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(rt.endpoint, "/")+path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("GET %s: %v", path, err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		session := func() *demo {
			t.Helper()
			c := mcp.NewClient(&mcp.Implementation{Name: "model", Version: "1"}, nil)
			cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: rt.endpoint,
				HTTPClient: &http.Client{Transport: bearer{rt.token, http.DefaultTransport}}, MaxRetries: -1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			return &demo{t: t, mcp: cs}
		}
		return rt, probe, session
	}

	pool := newFakePool(t, target.Host, 0)
	_, probe, session := runtime(pool, "10s")
	waitUntil(t, ctx, "/readyz once the pool is attached", func() bool { return probe("/readyz") == http.StatusOK })
	old := session()
	if r := old.call(ctx, "browser_navigate", map[string]any{"url": testsite.BookingURL()}); r.Outcome != "done" {
		t.Fatalf("a session through the pool: %+v", r)
	}

	pool.down()
	lost := time.Now()
	waitUntil(t, ctx, "/readyz to fail after the pool died", func() bool { return probe("/readyz") == http.StatusServiceUnavailable })
	if d := time.Since(lost); d > 5*time.Second {
		t.Errorf("/readyz failed %v after the pool died, want within a few seconds", d.Round(time.Millisecond))
	}
	if code := probe("/healthz"); code != http.StatusOK {
		t.Errorf("/healthz with the pool down: %d, want 200 (the process serves)", code)
	}
	if r := old.call(ctx, "browser_snapshot", nil); r.Reason != "browser_gone" {
		t.Errorf("the old session after the pool died: %+v, want browser_gone", r)
	}
	if code := probe("/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz with the pool still down: %d, want 503", code)
	}

	pool.up()
	back := time.Now()
	waitUntil(t, ctx, "/readyz once the pool is back", func() bool { return probe("/readyz") == http.StatusOK })
	t.Logf("/readyz passed %v after the pool came back (no session asked)", time.Since(back).Round(time.Millisecond))
	if r := session().call(ctx, "browser_navigate", map[string]any{"url": testsite.BookingURL()}); r.Outcome != "done" {
		t.Errorf("a new session once /readyz passed: %+v", r)
	}

	// A pool that holds the connection 3s in its queue: a bound of 20s
	// waits for it.
	slow := newFakePool(t, target.Host, 3*time.Second)
	_, _, slowSession := runtime(slow, "20s")
	began := time.Now()
	if r := slowSession().call(ctx, "browser_navigate", map[string]any{"url": testsite.BookingURL()}); r.Outcome != "done" {
		t.Errorf("a session through a pool that queues it 3s, with --attach-timeout 20s: %+v", r)
	} else {
		t.Logf("the queued session navigated after %v", time.Since(began).Round(time.Millisecond))
	}

	// A pool whose queue never moves: a bound of 2s runs out, and says so.
	stuck := newFakePool(t, target.Host, -1)
	_, stuckProbe, stuckSession := runtime(stuck, "2s")
	r := stuckSession().call(ctx, "browser_navigate", map[string]any{"url": testsite.BookingURL()})
	if r.Reason != "browser_unavailable" || !strings.Contains(r.Message, "queued") || !strings.Contains(r.Message, "did not answer in 2s") {
		t.Errorf("a session through a pool that never leaves its queue: %+v, want browser_unavailable saying the pool queued it and did not answer in 2s", r)
	}
	if code := stuckProbe("/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz with the pool's queue stuck: %d, want 503", code)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatal("the test ran out of time")
	}
}
