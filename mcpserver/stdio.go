package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves s over r and w (stdin and stdout) until ctx ends or the
// client disconnects. Two details the go-sdk leaves out are kept here: a
// call the client cancelled (notifications/cancelled) gets no response, as
// MCP asks; and an error the SDK answers with code 0 (a call before
// initialize, for one) gets a JSON-RPC code: Invalid Request before
// initialize, Internal Error otherwise.
//
// When ctx ends (SIGTERM, SIGINT) the calls in flight are answered first:
// every session's gate stops its action (failed, shutting_down; a call
// whose action is slow to stop, a navigation waiting for a server, is
// answered so within half a second without it), the answers are written,
// and only then does the session close; ServeStdio then returns nil, so
// the process exits 0. It waits for the goroutines it started.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) (err error) {
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
		defer cancel()
		err = errors.Join(err, s.Close(cctx))
	}()
	out := &lockedWriter{w: w}
	// The screen answers the lines that are not messages and bounds their
	// length itself, so the SDK's reader never meets one it would end on.
	t := &guardedTransport{Transport: &mcp.IOTransport{Reader: screen(r, out), Writer: out, MaxLineLength: -1}, reply: out}
	runCtx, stopRun := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRun()
	watched := make(chan struct{}) // the shutdown below has ended; waited for before ServeStdio returns
	stopWatch := context.AfterFunc(ctx, func() {
		defer close(watched)
		dctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
		defer cancel()
		s.beginShutdown()
		// The calls are answered (by their actions, or after
		// shutdownGrace without them) while the gates stop theirs.
		var gates sync.WaitGroup
		gates.Go(func() { s.reg.closeGates(dctx) })
		t.drain(dctx)
		stopRun()
		gates.Wait()
	})
	defer func() {
		if !stopWatch() {
			<-watched
		}
	}()
	if err := s.mcp.Run(runCtx, t); ctx.Err() == nil {
		return err
	}
	return nil
}

// drainTimeout bounds a shutdown: stopping the actions in flight and
// writing the answers owed.
const drainTimeout = 1500 * time.Millisecond

// guardedTransport wraps a transport's connection in a guardedConn.
type guardedTransport struct {
	mcp.Transport
	reply *lockedWriter // where a message the SDK refuses is answered

	mu   sync.Mutex
	conn *guardedConn // the connection, once connected
}

func (t *guardedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	g := &guardedConn{Connection: c, reply: t.reply, inFlight: map[string]bool{}, cancelled: map[string]bool{}}
	t.mu.Lock()
	t.conn = g
	t.mu.Unlock()
	return g, nil
}

// drain waits, within ctx, until every call read has been answered (the
// session drops the answers it has not written when it closes).
func (t *guardedTransport) drain(ctx context.Context) {
	t.mu.Lock()
	c := t.conn
	t.mu.Unlock()
	if c == nil {
		return
	}
	for {
		c.mu.Lock()
		n := len(c.inFlight)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// guardedConn drops the response of a call the client has cancelled and
// gives a code to the SDK's code-0 errors.
type guardedConn struct {
	mcp.Connection
	reply *lockedWriter

	mu        sync.Mutex
	inFlight  map[string]bool // calls read and not yet answered, by ID
	cancelled map[string]bool // of those, the ones the client cancelled
}

func (c *guardedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	// Every line the SDK reads is JSON (see screen), so its reader lives
	// on after an error that is about one message (a batch in a protocol
	// version without batches, a duplicate id): answer it and read on,
	// rather than let the error end the session.
	for err != nil && c.reply != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) {
		c.reply.replyError(nil, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		msg, err = c.Connection.Read(ctx)
	}
	req, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok {
		return msg, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.IsCall() {
		c.inFlight[idKey(req.ID)] = true
	}
	if req.Method == "notifications/cancelled" {
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil && c.inFlight[idKey(id)] {
				c.cancelled[idKey(id)] = true
			}
		}
	}
	return msg, nil
}

func (c *guardedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		k := idKey(resp.ID)
		c.mu.Lock()
		drop := c.cancelled[k]
		delete(c.inFlight, k)
		delete(c.cancelled, k)
		c.mu.Unlock()
		if drop {
			return nil
		}
		resp.Error = withCode(resp.Error)
	}
	return c.Connection.Write(ctx, msg)
}

// withCode gives an error without a JSON-RPC code one.
func withCode(err error) error {
	var wire *jsonrpc.Error
	if err == nil || errors.As(err, &wire) && wire.Code != 0 {
		return err
	}
	code := int64(jsonrpc.CodeInternalError)
	if strings.Contains(err.Error(), "during session initialization") {
		code = jsonrpc.CodeInvalidRequest // the SDK's answer to a call before initialize
	}
	return &jsonrpc.Error{Code: code, Message: err.Error()}
}

// idKey is a request ID as a map key (a number and a string never meet).
func idKey(id jsonrpc.ID) string {
	b, _ := json.Marshal(id.Raw())
	return string(b)
}
