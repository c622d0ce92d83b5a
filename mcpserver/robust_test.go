package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/gate/gatetest"
	"github.com/poppy-browser/poppy-browser/spec"
)

// addPanickingTool adds a tool whose handler really panics, as a bug
// would, beside the server's own.
func addPanickingTool(srv *Server) {
	srv.MCP().AddTool(&mcp.Tool{Name: "test_panic", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var m map[string]int
			m["boom"]++ // a nil map: a real runtime panic
			return nil, nil
		})
}

// TestToolPanicIsAFailedCall: a panic in a tool call answers that call
// (failed, internal, isError), logs it with its stack, and the session and
// the process go on, over in-memory transports, stdio and HTTP.
func TestToolPanicIsAFailedCall(t *testing.T) {
	for _, transport := range []string{"in-memory", "stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			var logs syncBuffer
			srv := NewServer(newFakeRuntimes().open, &Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			addPanickingTool(srv)
			var cs *mcp.ClientSession
			switch transport {
			case "in-memory":
				cs = connect(t, srv.MCP())
			case "stdio":
				cs = stdioClient(t, ctx, srv)
			case "http":
				var err error
				if cs, err = serveHTTP(t, ctx, srv, HTTPOptions{}).client(ctx, nil); err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_panic"})
			if err != nil {
				t.Fatalf("the panicking call got no answer: %v", err)
			}
			raw, _ := json.Marshal(res.StructuredContent)
			var out struct{ Outcome, Reason, Message string }
			_ = json.Unmarshal(raw, &out)
			if !res.IsError || out.Outcome != "failed" || out.Reason != string(spec.ReasonInternal) {
				t.Errorf("the panicking call: %s (isError %v), want failed/internal", raw, res.IsError)
			}
			if strings.Contains(out.Message, "nil map") || strings.Contains(out.Message, "goroutine") {
				t.Errorf("the model reads the panic: %q", out.Message)
			}
			if l := logs.String(); !strings.Contains(l, "panic in an MCP handler") || !strings.Contains(l, "robust_test.go") {
				t.Errorf("the log has no panic with its stack:\n%s", l)
			}
			st := callStatus(t, ctx, cs, spec.ToolControlStatus, nil)
			if st.Controller != spec.ControllerAgent {
				t.Errorf("the session after the panic: %+v", st)
			}
		})
	}
}

// stdioClient serves srv over pipes with ServeStdio and connects a go-sdk
// client to it.
func stdioClient(t *testing.T, ctx context.Context, srv *Server) *mcp.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	sctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.ServeStdio(sctx, inR, outW)
		outW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		stop()
		inW.Close()
		<-done
	})
	return cs
}

// TestStdioLinesThatAreNotMessages: a line that is not JSON gets a parse
// error (-32700), JSON that is no JSON-RPC message an Invalid Request
// (-32600) with its id when it has one, and the session answers the next
// request as before; the go-sdk alone ends the session at the first one.
func TestStdioLinesThatAreNotMessages(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	srv := NewServer(newFakeRuntimes().open, nil)
	rc := newRawClient(t, ctx, srv.ServeStdio)
	rc.send(rawInitialize)
	rc.until(ctx, 1)
	rc.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, c := range []struct {
		line string
		code float64
		id   any
	}{
		{"this is not json", -32700, nil},
		{`{"jsonrpc":"2.0","id":2,"method":`, -32700, nil},
		{`{"jsonrpc":"1.0","id":"x","method":"ping"}`, -32600, "x"},
		{`42`, -32600, nil},
		{`[]`, -32600, nil},
		{`[{"jsonrpc":"2.0","id":91,"method":"ping"},{"jsonrpc":"2.0","id":91,"method":"ping"}]`, -32600, nil}, // the SDK's own refusal
		{strings.Repeat("x", maxLine+10), -32700, nil},
	} {
		rc.send(c.line)
		var got map[string]any
		select {
		case got = <-rc.lines:
		case <-ctx.Done():
			t.Fatalf("line %d: no answer", i)
		}
		e, _ := got["error"].(map[string]any)
		if e == nil || e["code"] != c.code || got["id"] != c.id {
			t.Errorf("line %d %.40q: got %v, want error %v with id %v", i, c.line, got, c.code, c.id)
		}
		id := float64(100 + i)
		rc.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"method":"ping"}`, id))
		if m := rc.until(ctx, id); m[len(m)-1]["result"] == nil {
			t.Errorf("after line %d the server did not answer a ping: %v", i, m)
		}
	}
}

// TestHTTPBrowserOpensAtFirstToolCall: over HTTP, initialize and
// tools/list open no runtime (no browser context); the first tool call
// does.
func TestHTTPBrowserOpensAtFirstToolCall(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var opened atomic.Int64
	rts := newFakeRuntimes()
	srv := NewServer(func(ctx context.Context, id string) (Runtime, error) {
		opened.Add(1)
		return rts.open(ctx, id)
	}, nil)
	cs, err := serveHTTP(t, ctx, srv, HTTPOptions{}).client(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n := opened.Load(); n != 0 {
		t.Fatalf("%d runtimes opened before any tool call, want 0", n)
	}
	callStatus(t, ctx, cs, spec.ToolControlStatus, nil)
	if n := opened.Load(); n != 1 {
		t.Errorf("%d runtimes opened after the first tool call, want 1", n)
	}
}

// TestHTTPUnusedSessionFreesItsSlot: a session that makes no tool call
// within FirstCallWithin ends, and its --max-sessions slot goes to the
// next client; a session that called a tool stays.
func TestHTTPUnusedSessionFreesItsSlot(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	rts := newFakeRuntimes()
	srv := NewServer(rts.open, &Options{MaxSessions: 2, FirstCallWithin: 300 * time.Millisecond})
	h := serveHTTP(t, ctx, srv, HTTPOptions{})
	used, err := h.client(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer used.Close()
	callStatus(t, ctx, used, spec.ToolControlStatus, nil)
	if _, body := h.post(t, ctx, "Bearer "+h.token, "", initializeBody); !strings.Contains(body, `"result"`) {
		t.Fatalf("a bare initialize: %s", body)
	}
	if _, body := h.post(t, ctx, "Bearer "+h.token, "", initializeBody); !strings.Contains(body, "--max-sessions") {
		t.Fatalf("a third session while two are held: %s, want the cap's refusal", body)
	}
	waitUntil(t, ctx, "the unused session ends", func() bool { return srv.reg.count() == 1 })
	next, err := h.client(ctx, nil)
	if err != nil {
		t.Fatalf("a client after the unused session ended: %v", err)
	}
	next.Close()
	if _, ended := rts.endedAs(used.ID()); ended {
		t.Error("the session that called a tool ended")
	}
}

// BenchmarkSessionCapFlood: initialize requests at the door of a server
// whose cap is held: every one is refused, and never more than the cap is
// held.
func BenchmarkSessionCapFlood(b *testing.B) {
	ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute)
	defer cancel()
	srv := NewServer(newFakeRuntimes().open, &Options{MaxSessions: 2, FirstCallWithin: -1})
	h := serveHTTP(b, ctx, srv, HTTPOptions{})
	for range 2 {
		if _, body := h.post(b, ctx, "Bearer "+h.token, "", initializeBody); strings.Contains(body, "--max-sessions") {
			b.Fatalf("one of the first two sessions was refused: %s", body)
		}
	}
	var refused atomic.Int64
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, body := h.post(b, ctx, "Bearer "+h.token, "", initializeBody); strings.Contains(body, "--max-sessions") {
				refused.Add(1)
			}
			if n := srv.reg.count(); n > 2 {
				b.Errorf("%d sessions held, cap 2", n)
			}
		}
	})
	if got := refused.Load(); got != int64(b.N) {
		b.Errorf("%d of %d initialize requests refused, want all", got, b.N)
	}
}

// TestCloseWaitsAndSaysSo: Server.Close returns once every session's
// runtime has closed, and within its ctx with an error when one does not.
func TestCloseWaitsAndSaysSo(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	release := make(chan struct{})
	var closed atomic.Bool
	srv := NewServer(func(ctx context.Context, id string) (Runtime, error) {
		return stuckRuntime{gatetest.New(), release, &closed}, nil
	}, nil)
	cs := connect(t, srv.MCP())
	callStatus(t, ctx, cs, spec.ToolControlStatus, nil)
	short, stop := context.WithTimeout(ctx, 200*time.Millisecond)
	defer stop()
	if err := srv.Close(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Close with a runtime that does not close: %v, want the deadline", err)
	}
	close(release)
	if err := srv.Close(ctx); err != nil {
		t.Errorf("Close once the runtime closes: %v", err)
	}
	if !closed.Load() {
		t.Error("Close returned before the runtime closed")
	}
}

type stuckRuntime struct {
	f       *gatetest.Fixture
	release chan struct{}
	closed  *atomic.Bool
}

func (r stuckRuntime) Gate() *gate.Gate { return r.f.Gate }

func (r stuckRuntime) Close(context.Context, string) error {
	<-r.release
	r.closed.Store(true)
	return nil
}

// TestHugeSnapshotFitsTheClient: a snapshot of a huge page (30 MB of text
// that JSON escapes sixfold, 200,000 elements) gives a result under the
// go-sdk client's 16 MiB frame limit that says what was cut.
func TestHugeSnapshotFitsTheClient(t *testing.T) {
	els := make([]gate.ElementInfo, 200_000)
	for i := range els {
		els[i] = gate.ElementInfo{Ref: fmt.Sprintf("e%d", i), Role: "link", Name: strings.Repeat("<", 40)}
	}
	res := result(gate.Result{Outcome: spec.OutcomeDone, Text: strings.Repeat("<é", 10_000_000), Elements: els}, true)
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) >= mcp.DefaultMaxLineLength {
		t.Errorf("the result is %d bytes, over the client's frame limit %d", len(b), mcp.DefaultMaxLineLength)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, "the page text was cut here") || !utf8.ValidString(text) {
		t.Errorf("the cut text does not say so or is not UTF-8: ...%q", text[max(0, len(text)-200):])
	}
	if sc, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(sc), "was left out") {
		t.Errorf("the structured content does not say the elements were left out: %.300s", sc)
	}
}
