package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/gate/gatetest"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestHTTPSessionsHaveOwnRuntimes: two clients over HTTP each drive their
// own runtime: the User taking control in A's does not touch B's, and
// each control notice reaches its own session only.
func TestHTTPSessionsHaveOwnRuntimes(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	rts := newFakeRuntimes()
	h := serveHTTP(t, ctx, NewServer(rts.open, nil), HTTPOptions{})
	notices := map[string]chan ControlNotice{"A": make(chan ControlNotice, 8), "B": make(chan ControlNotice, 8)}
	sessions := map[string]*mcp.ClientSession{}
	for _, name := range []string{"A", "B"} {
		ch := notices[name]
		cs, err := h.client(ctx, &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			b, _ := json.Marshal(r.Params.Data)
			var n ControlNotice
			_ = json.Unmarshal(b, &n)
			ch <- n
		}})
		if err != nil {
			t.Fatalf("client %s: %v", name, err)
		}
		defer cs.Close()
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "notice"}); err != nil {
			t.Fatal(err)
		}
		sessions[name] = cs
	}
	a, b := sessions["A"], sessions["B"]
	if a.ID() == b.ID() || a.ID() == "" {
		t.Fatalf("session ids %q and %q", a.ID(), b.ID())
	}
	// Both runtimes are open once each session made a call.
	callStatus(t, ctx, a, spec.ToolControlStatus, nil)
	callStatus(t, ctx, b, spec.ToolControlStatus, nil)
	fa, fb := rts.fixture(a.ID()), rts.fixture(b.ID())
	if fa == nil || fb == nil || fa == fb {
		t.Fatalf("runtimes: A %p, B %p", fa, fb)
	}
	if err := fa.Control.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	if st := callStatus(t, ctx, a, spec.ToolControlStatus, nil); st.Controller != spec.ControllerUser {
		t.Errorf("A's controller after A's User took control: %s", st.Controller)
	}
	if st := callStatus(t, ctx, b, spec.ToolControlStatus, nil); st.Controller != spec.ControllerAgent {
		t.Errorf("B's controller after A's User took control: %s", st.Controller)
	}
	select {
	case n := <-notices["A"]:
		if n.Controller != spec.ControllerUser {
			t.Errorf("A's notice: %+v", n)
		}
	case <-ctx.Done():
		t.Fatal("A was not told of its User's take")
	}
	select {
	case n := <-notices["B"]:
		t.Errorf("B was told of A's take: %+v", n)
	case <-time.After(300 * time.Millisecond):
	}
}

// TestHTTPSessionCap: beyond MaxSessions a new session is refused with an
// error that names the cap; ending one lets the next in (a flood of
// initialize requests is BenchmarkSessionCapFlood).
func TestHTTPSessionCap(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	rts := newFakeRuntimes()
	srv := NewServer(rts.open, &Options{MaxSessions: 2})
	h := serveHTTP(t, ctx, srv, HTTPOptions{})
	first, err := h.client(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	second, err := h.client(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	_, err = h.client(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "at most 2") || !strings.Contains(err.Error(), "--max-sessions") {
		t.Fatalf("a third session: %v, want a refusal naming the cap", err)
	}
	if _, body := h.post(t, ctx, "Bearer "+h.token, "", initializeBody); !strings.Contains(body, fmt.Sprint(CodeTooManySessions)) {
		t.Errorf("a raw third initialize: %s, want code %d", body, CodeTooManySessions)
	}
	first.Close() // DELETE
	waitUntil(t, ctx, "the first session is gone", func() bool { return srv.reg.count() < 2 })
	third, err := h.client(ctx, nil)
	if err != nil {
		t.Fatalf("a session after one ended: %v", err)
	}
	third.Close()
}

// TestHTTPIdleSessionEnds: a session with no request for SessionIdle ends:
// its runtime closes with reason idle and the client's next call fails.
func TestHTTPIdleSessionEnds(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	rts := newFakeRuntimes()
	srv := NewServer(rts.open, &Options{SessionIdle: 300 * time.Millisecond})
	h := serveHTTP(t, ctx, srv, HTTPOptions{})
	cs, err := h.client(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// A call longer than the idle time is activity, not idleness.
	if err := rts.fixtureAfterCall(t, ctx, cs).Control.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	st := callStatus(t, ctx, cs, spec.ToolWaitForControl, map[string]any{"timeout_seconds": 1})
	if !st.TimedOut {
		t.Fatalf("wait: %+v", st)
	}
	if reason, ended := rts.endedAs(cs.ID()); ended {
		t.Fatalf("the session ended (%s) during a call", reason)
	}
	waitUntil(t, ctx, "the idle session ends", func() bool { _, ended := rts.endedAs(cs.ID()); return ended })
	if reason, _ := rts.endedAs(cs.ID()); reason != EndIdle {
		t.Errorf("ended as %q, want %q", reason, EndIdle)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: spec.ToolControlStatus}); err == nil {
		t.Error("a call on the expired session succeeded")
	}
	if n := srv.reg.count(); n != 0 {
		t.Errorf("%d sessions held after expiry", n)
	}
}

// fixtureAfterCall makes a call so the session's runtime is open, and
// returns its fake page and control.
func (f *fakeRuntimes) fixtureAfterCall(t *testing.T, ctx context.Context, cs *mcp.ClientSession) *gatetest.Fixture {
	t.Helper()
	callStatus(t, ctx, cs, spec.ToolControlStatus, nil)
	fx := f.fixture(cs.ID())
	if fx == nil {
		t.Fatal("no runtime for the session")
	}
	return fx
}

// TestHTTPDeleteEndsCalls: ending a session (DELETE) mid-call stops the
// call at once rather than after its timeout, and closes the runtime.
func TestHTTPDeleteEndsCalls(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	rts := newFakeRuntimes()
	srv := NewServer(rts.open, nil)
	h := serveHTTP(t, ctx, srv, HTTPOptions{})
	cs, err := h.client(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	fx := rts.fixtureAfterCall(t, ctx, cs)
	if err := fx.Control.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: spec.ToolWaitForControl, Arguments: map[string]any{"timeout_seconds": 60}})
	}()
	waitUntil(t, ctx, "the wait is in flight", func() bool {
		e := srv.reg.lookupID(cs.ID())
		return e != nil && e.idleSince(time.Now()) == 0
	})
	start := time.Now()
	req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, h.endpoint, nil)
	req.Header.Set("Authorization", "Bearer "+h.token)
	req.Header.Set(sessionHeader, cs.ID())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("DELETE took %v: it waited for the call", d)
	}
	if reason, ended := rts.endedAs(cs.ID()); !ended || reason != EndClosed {
		t.Errorf("runtime ended: %v %q", ended, reason)
	}
	cs.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Error("the call did not end within 10s of the DELETE")
	}
}

// TestHTTPCallBeforeInitialize: a request without a session that is not an
// initialize gets a JSON-RPC error with a code, not code 0.
func TestHTTPCallBeforeInitialize(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	srv := NewServer(newFakeRuntimes().open, nil)
	h := serveHTTP(t, ctx, srv, HTTPOptions{})
	// A client probing for the sessionless protocol gets the SDK's own
	// answer, and no runtime is opened for the probe.
	if status, body := h.post(t, ctx, "Bearer "+h.token, "", `{"jsonrpc":"2.0","id":6,"method":"server/discover","params":{}}`); status != http.StatusOK || srv.reg.count() != 0 {
		t.Errorf("server/discover: HTTP %d %s, %d sessions held", status, body, srv.reg.count())
	}
	status, body := h.post(t, ctx, "Bearer "+h.token, "", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	var resp struct {
		ID    any `json:"id"`
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		t.Fatalf("HTTP %d %q: %v", status, body, err)
	}
	if status != http.StatusBadRequest || resp.Error.Code != -32600 || resp.ID != float64(7) {
		t.Errorf("HTTP %d, body %s: want 400 with code -32600 and id 7", status, body)
	}
}

// TestWaitSendsProgress: browser_wait_for_control with a progress token
// sends progress notifications while it waits.
func TestWaitSendsProgress(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	rts := newFakeRuntimes()
	h := serveHTTP(t, ctx, NewServer(rts.open, &Options{ProgressEvery: 100 * time.Millisecond}), HTTPOptions{})
	var got, other atomic.Int64
	cs, err := h.client(ctx, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		if r.Params.ProgressToken == "wait-1" && r.Params.Progress > 0 && r.Params.Total == 1 {
			got.Add(1)
		} else {
			other.Add(1)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := rts.fixtureAfterCall(t, ctx, cs).Control.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	p := &mcp.CallToolParams{Name: spec.ToolWaitForControl, Arguments: map[string]any{"timeout_seconds": 1}}
	p.SetProgressToken("wait-1")
	if _, err := cs.CallTool(ctx, p); err != nil {
		t.Fatal(err)
	}
	if n := got.Load(); n < 3 {
		t.Errorf("%d progress notifications in a 1 s wait every 100 ms, want at least 3", n)
	}
	// Without a token, none.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: spec.ToolWaitForControl, Arguments: map[string]any{"timeout_seconds": 0.5}}); err != nil {
		t.Fatal(err)
	}
	if n := other.Load(); n != 0 {
		t.Errorf("%d progress notifications without a token or with another", n)
	}
}

// TestStartsInBackground: initialize and tools/list answer while the
// runtime is still starting; a browser tool waits for it; a runtime that
// failed makes browser tools fail with the reason while
// browser_control_status still answers.
func TestStartsInBackground(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	release := make(chan struct{})
	fail := errors.New("starting chromium: no Chromium found on PATH")
	var calls atomic.Int64
	open := func(ctx context.Context, id string) (Runtime, error) {
		calls.Add(1)
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return nil, fail
	}
	srv := NewServer(open, &Options{StartTimeout: 30 * time.Second})
	cs := connect(t, srv.MCP())
	start := time.Now()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("tools/list took %v while the browser starts", d)
	}
	waitUntil(t, ctx, "the runtime is being opened", func() bool { return calls.Load() == 1 })
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: spec.ToolSnapshot})
		answered <- answer{res, err}
	}()
	// The failure must reach a call that is already waiting for it.
	waitUntil(t, ctx, "the snapshot waits for the runtime", func() bool {
		all := srv.reg.all()
		return len(all) == 1 && all[0].idleSince(time.Now()) == 0
	})
	close(release)
	a := <-answered
	res, err := a.res, a.err
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(out), `"outcome":"failed"`) || !strings.Contains(string(out), string(spec.ReasonBrowserUnavailable)) || !strings.Contains(string(out), "no Chromium found") {
		t.Errorf("snapshot with no browser: %s", out)
	}
	st := callStatus(t, ctx, cs, spec.ToolControlStatus, nil)
	if st.Controller != spec.ControllerAgent || !strings.Contains(st.BrowserError, "no Chromium found") {
		t.Errorf("control status with no browser: %+v", st)
	}
}
