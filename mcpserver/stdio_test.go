package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/gate/gatetest"
	"github.com/poppy-browser/poppy-browser/spec"
)

// rawClient speaks JSON-RPC lines to a server over pipes, as a stdio
// client does.
type rawClient struct {
	t     *testing.T
	in    io.WriteCloser
	lines chan map[string]any
}

func newRawClient(t *testing.T, ctx context.Context, serve func(ctx context.Context, r io.Reader, w io.Writer) error) *rawClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &rawClient{t: t, in: inW, lines: make(chan map[string]any, 64)}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = serve(sctx, inR, outW)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				c.lines <- m
			}
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		stop()
		inW.Close()
		<-done
	})
	return c
}

func (c *rawClient) send(msg string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, msg+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// until reads messages until one answers id, and returns them all.
func (c *rawClient) until(ctx context.Context, id float64) []map[string]any {
	c.t.Helper()
	var got []map[string]any
	for {
		select {
		case m, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("the server closed before answering %v", id)
			}
			got = append(got, m)
			if m["id"] == id {
				return got
			}
		case <-ctx.Done():
			c.t.Fatalf("no answer to request %v", id)
		}
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

const rawInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// TestStdioNoResponseAfterCancel: a call the client cancels gets no
// response (MCP: "the receiver SHOULD NOT send a response"), over stdio;
// the go-sdk alone sends one, which the same run shows.
func TestStdioNoResponseAfterCancel(t *testing.T) {
	for _, c := range []struct {
		name   string
		guard  bool
		answer bool
	}{{"poppy-browser", true, false}, {"go-sdk alone", false, true}} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			f := gatetest.New()
			if err := f.Control.User().Take(ctx); err != nil {
				t.Fatal(err)
			}
			srv := NewServer(Fixed(f.Gate), nil)
			serve := srv.ServeStdio
			if !c.guard {
				serve = func(ctx context.Context, r io.Reader, w io.Writer) error {
					return srv.MCP().Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{w}})
				}
			}
			rc := newRawClient(t, ctx, serve)
			rc.send(rawInitialize)
			rc.until(ctx, 1)
			rc.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			rc.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":%q,"arguments":{"timeout_seconds":60}}}`, spec.ToolWaitForControl))
			waitUntil(t, ctx, "the wait is in flight", func() bool {
				for _, e := range srv.reg.all() {
					if e.idleSince(time.Now()) == 0 {
						return true
					}
				}
				return false
			})
			rc.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the user gave up"}}`)
			waitUntil(t, ctx, "the cancelled call has returned", func() bool {
				for _, e := range srv.reg.all() {
					if e.idleSince(time.Now()) == 0 {
						return false
					}
				}
				return true
			})
			rc.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
			answered := false
			for _, m := range rc.until(ctx, 3) {
				if m["id"] == float64(2) {
					answered = true
				}
			}
			if c.answer && !answered {
				// The go-sdk writes the cancelled call's response from the
				// call's own goroutine: it may come after the ping's, not
				// before (it did on a loaded machine). Wait for it.
				rc.until(ctx, 2)
				answered = true
			}
			if answered != c.answer {
				t.Errorf("a response to the cancelled call: %v, want %v", answered, c.answer)
			}
		})
	}
}

// TestStdioCallBeforeInitialize: a call before initialize is refused with
// JSON-RPC code -32600 (Invalid Request); the go-sdk alone answers code 0.
func TestStdioCallBeforeInitialize(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	srv := NewServer(Fixed(gatetest.New().Gate), nil)
	rc := newRawClient(t, ctx, srv.ServeStdio)
	rc.send(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	got := rc.until(ctx, 5)
	e, _ := got[len(got)-1]["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32600) {
		t.Fatalf("tools/list before initialize: %v, want error code -32600", got[len(got)-1])
	}
	// The session still initializes afterwards.
	rc.send(rawInitialize)
	if m := rc.until(ctx, 1); m[len(m)-1]["result"] == nil {
		t.Errorf("initialize after the refusal: %v", m[len(m)-1])
	}
}
