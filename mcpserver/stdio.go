package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/gate"
)

// drainTimeout bounds a shutdown: stopping the action in flight and writing
// the answers owed.
const drainTimeout = 1500 * time.Millisecond

// RunStdio serves srv over r and w (stdin and stdout) until the client
// disconnects or ctx ends. When ctx ends (SIGTERM, SIGINT), the gate stops
// the action in flight, whose call is answered (failed, shutting_down),
// and the session closes once every call has its answer written, within
// about a second and a half. It returns nil after a shutdown by ctx, so the
// process exits 0.
func RunStdio(ctx context.Context, srv *mcp.Server, g *gate.Gate, r io.Reader, w io.Writer) error {
	var ledger callLedger
	ledger.changed = make(chan struct{})
	srv.AddReceivingMiddleware(ledger.middleware)
	runCtx, stopRun := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRun()
	stopWatch := context.AfterFunc(ctx, func() {
		dctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
		defer cancel()
		_ = g.Close(dctx)
		ledger.wait(dctx)
		stopRun()
	})
	defer stopWatch()
	err := srv.Run(runCtx, &mcp.IOTransport{Reader: closable(r), Writer: ledgerWriter{w, &ledger}})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// callLedger counts the calls the server took and the answers it wrote: a
// session closed with answers unwritten would drop them.
type callLedger struct {
	mu       sync.Mutex
	calls    int
	answered int
	changed  chan struct{}
}

func (l *callLedger) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !strings.HasPrefix(method, "notifications/") {
			l.add(1, 0)
		}
		return next(ctx, method, req)
	}
}

func (l *callLedger) add(calls, answered int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls += calls
	l.answered += answered
	close(l.changed)
	l.changed = make(chan struct{})
}

// wait waits until every call taken is answered, or ctx ends.
func (l *callLedger) wait(ctx context.Context) {
	for {
		l.mu.Lock()
		done, ch := l.answered >= l.calls, l.changed
		l.mu.Unlock()
		if done {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-ch:
		}
	}
}

// ledgerWriter counts the answers (messages with an id and no method) as
// they are written.
type ledgerWriter struct {
	w io.Writer
	l *callLedger
}

func (lw ledgerWriter) Write(p []byte) (int, error) {
	n, err := lw.w.Write(p)
	for _, line := range bytes.Split(p, []byte("\n")) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &m) == nil && len(m.ID) > 0 && m.Method == "" {
			lw.l.add(0, 1)
		}
	}
	return n, err
}

func (lw ledgerWriter) Close() error { return nil }

// closable reads r through a pipe, so that closing the session ends a read
// that r itself would block in (stdin has no deadline).
func closable(r io.Reader) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, r)
		pw.CloseWithError(err)
	}()
	return pr
}
