package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/gate"
)

// Runtime is the browser side of one MCP session: its gate (and through it
// its control state), and how it ends.
type Runtime interface {
	Gate() *gate.Gate
	// Close ends the runtime; reason ("idle", "closed") is for its audit
	// log.
	Close(reason string) error
}

// OpenFunc opens the runtime of the MCP session id ("" over stdio). It may
// take as long as the browser's start: the server calls it in the
// background when the session initializes, so initialize and tools/list
// answer at once, and the session's first tool call waits for it. ctx ends
// when the session does.
type OpenFunc func(ctx context.Context, id string) (Runtime, error)

// Why a session ended, as Runtime.Close hears it.
const (
	EndIdle   = "idle"   // no request for Options.SessionIdle
	EndClosed = "closed" // the client ended it (DELETE, or the transport closed)
)

// registry holds the runtime of every open MCP session.
type registry struct {
	open         OpenFunc
	notify       bool // each runtime's control changes go to its session
	startTimeout time.Duration
	log          *slog.Logger

	max     int // sessions open at once; 0 or less: no bound
	metrics *metrics

	mu     sync.Mutex
	byConn map[*mcp.ServerSession]*entry
	byID   map[string]*entry
}

// entry is one MCP session's runtime as it starts, runs and ends.
type entry struct {
	id     string
	ss     *mcp.ServerSession
	ctx    context.Context // ends with the session: its calls stop
	cancel context.CancelFunc

	ready chan struct{} // closed when open has returned
	rt    Runtime
	err   error

	mu       sync.Mutex
	lastSeen time.Time
	inFlight int

	startOnce, endOnce sync.Once

	cancels cancels // over HTTP: calls in flight and cancelled
}

func newRegistry(open OpenFunc, notify bool, max int, startTimeout time.Duration, log *slog.Logger) *registry {
	return &registry{open: open, notify: notify, max: max, startTimeout: startTimeout, log: log,
		byConn: map[*mcp.ServerSession]*entry{}, byID: map[string]*entry{}}
}

// middleware opens a runtime when a session initializes and counts every
// request of a session as activity (see reapIdle).
func (r *registry) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, _ := req.GetSession().(*mcp.ServerSession)
		if ss == nil {
			return next(ctx, method, req)
		}
		// A session begins with initialize or, in the sessionless protocol
		// (2026-07-28, stdio and in-memory only), with its first request.
		e := r.lookup(ss)
		if e == nil && (method == "server/discover" || method == "ping") {
			return next(ctx, method, req) // a probe: no runtime for it
		}
		if e == nil {
			var err error
			if e, err = r.admit(ss); err != nil {
				return nil, err
			}
			if method == "initialize" {
				res, err := next(ctx, method, req)
				if err != nil {
					r.forget(e) // the SDK closes a session whose initialize failed
					return nil, err
				}
				r.start(e)
				return res, nil
			}
			r.start(e)
		}
		e.busy(+1)
		defer e.busy(-1)
		return next(ctx, method, req)
	}
}

// CodeTooManySessions is the JSON-RPC error code of a new session refused
// because Options.MaxSessions are open (a server error, JSON-RPC 2.0
// section 5.1).
const CodeTooManySessions = -32000

// admit registers ss, unless MaxSessions are open.
func (r *registry) admit(ss *mcp.ServerSession) (*entry, error) {
	e := &entry{id: ss.ID(), ss: ss, ready: make(chan struct{}), lastSeen: time.Now()}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	r.mu.Lock()
	defer r.mu.Unlock()
	if old := r.byConn[ss]; old != nil { // two first requests at once: keep one
		e.cancel()
		return old, nil
	}
	if r.max > 0 && len(r.byConn) >= r.max {
		e.cancel()
		return nil, &jsonrpc.Error{Code: CodeTooManySessions,
			Message: fmt.Sprintf("too many MCP sessions: this server holds at most %d at once (--max-sessions); end one or try again later", r.max)}
	}
	r.byConn[ss] = e
	r.byID[e.id] = e
	return e, nil
}

// forget drops an entry whose runtime never started.
func (r *registry) forget(e *entry) {
	e.endOnce.Do(func() {
		e.cancel()
		close(e.ready)
		r.remove(e)
	})
}

// start opens e's runtime in the background (once) and ends it with its
// session.
func (r *registry) start(e *entry) {
	e.startOnce.Do(func() {
		go func() {
			rt, err := r.open(e.ctx, e.id)
			e.rt, e.err = rt, err
			close(e.ready)
			if err != nil {
				r.log.Warn("opening a session's browser", "session", e.id, "err", err)
				return
			}
			if r.notify {
				go notifySession(e.ctx, e.ss, rt.Gate().Control())
			}
			if r.metrics != nil {
				go r.metrics.watchControl(e.ctx, rt.Gate().Control())
			}
		}()
		go func() {
			_ = e.ss.Wait()
			r.end(e, EndClosed)
		}()
	})
}

func (r *registry) remove(e *entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byConn, e.ss)
	if r.byID[e.id] == e {
		delete(r.byID, e.id)
	}
}

// end stops e's calls, closes its runtime and forgets it; once.
func (r *registry) end(e *entry, reason string) {
	e.endOnce.Do(func() {
		e.cancel()
		<-e.ready // open returns soon once e.ctx is done
		if e.rt != nil {
			if err := e.rt.Close(reason); err != nil {
				r.log.Warn("closing a session's browser", "session", e.id, "err", err)
			}
		}
		r.remove(e)
	})
}

func (r *registry) lookup(ss *mcp.ServerSession) *entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byConn[ss]
}

func (r *registry) lookupID(id string) *entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byID[id]
}

// count is the sessions open.
func (r *registry) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.byConn)
}

// all lists the open sessions.
func (r *registry) all() []*entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	all := make([]*entry, 0, len(r.byConn))
	for _, e := range r.byConn {
		all = append(all, e)
	}
	return all
}

// closeGates stops every session's gate: its action in flight ends with
// failed (shutting_down), as does every later one. It waits, within ctx,
// for the actions to return.
func (r *registry) closeGates(ctx context.Context) {
	var wg sync.WaitGroup
	for _, e := range r.all() {
		select {
		case <-e.ready:
		default:
			continue // still opening: it has no action in flight
		}
		if e.rt == nil {
			continue
		}
		g := e.rt.Gate()
		wg.Go(func() { _ = g.Close(ctx) })
	}
	wg.Wait()
}

// closeAll ends every session's runtime (the server stops).
func (r *registry) closeAll(reason string) {
	for _, e := range r.all() {
		r.end(e, reason)
	}
}

// reapIdle ends, until ctx ends, every session with no request in flight
// and none for idle: its runtime closes (reason "idle") and then its MCP
// session.
func (r *registry) reapIdle(ctx context.Context, idle time.Duration) {
	tick := time.NewTicker(min(max(idle/4, 10*time.Millisecond), time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			r.mu.Lock()
			var stale []*entry
			for _, e := range r.byConn {
				if e.idleSince(now) >= idle {
					stale = append(stale, e)
				}
			}
			r.mu.Unlock()
			for _, e := range stale {
				r.end(e, EndIdle)
				_ = e.ss.Close()
			}
		}
	}
}

// busy counts a request of the session starting (+1) or ending (-1).
func (e *entry) busy(d int) {
	e.mu.Lock()
	e.inFlight += d
	e.lastSeen = time.Now()
	e.mu.Unlock()
}

// idleSince is how long the session has had no request, or 0 while one is
// in flight.
func (e *entry) idleSince(now time.Time) time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.inFlight > 0 {
		return 0
	}
	return now.Sub(e.lastSeen)
}

// errNoSession means a tool was called on a session that never
// initialized or has ended.
var errNoSession = errors.New("this MCP session has no browser: it has not initialized or has ended")

// runtime waits (at most startTimeout) for the runtime of the calling
// session and returns its gate, with a ctx that also ends when the session
// does (a DELETE or idle expiry stops the call). stop releases the ctx.
func (r *registry) runtime(ctx context.Context, req *mcp.CallToolRequest) (g *gate.Gate, callCtx context.Context, stop func(), err error) {
	e := r.lookup(req.Session)
	if e == nil {
		return nil, ctx, func() {}, errNoSession
	}
	callCtx, cancel := context.WithCancel(ctx)
	unhook := context.AfterFunc(e.ctx, cancel)
	stop = func() { unhook(); cancel() }
	wait := time.NewTimer(r.startTimeout)
	defer wait.Stop()
	select {
	case <-e.ready:
	case <-callCtx.Done():
		return nil, callCtx, stop, fmt.Errorf("waiting for the browser: %w", callCtx.Err())
	case <-wait.C:
		return nil, callCtx, stop, fmt.Errorf("the browser did not start within %s", r.startTimeout)
	}
	if e.err != nil {
		return nil, callCtx, stop, e.err
	}
	return e.rt.Gate(), callCtx, stop, nil
}

// Fixed returns an OpenFunc whose every session drives g, which is already
// running (one User's runtime shared by their clients, as the demo's);
// nothing of it ends with a session.
func Fixed(g *gate.Gate) OpenFunc {
	return func(context.Context, string) (Runtime, error) { return fixed{g}, nil }
}

type fixed struct{ g *gate.Gate }

func (f fixed) Gate() *gate.Gate { return f.g }
func (fixed) Close(string) error { return nil }
