package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/gate"
)

// Runtime is the browser side of one MCP session: its gate (and through it
// its control state), and how it ends.
type Runtime interface {
	Gate() *gate.Gate
	// Close ends the runtime within ctx; reason ("idle", "closed") is for
	// its audit log.
	Close(ctx context.Context, reason string) error
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

// registry holds the runtime of every open MCP session, and owns the
// goroutines that open, notify and end them: close waits for them.
type registry struct {
	open         OpenFunc
	notify       bool // each runtime's control changes go to its session
	startTimeout time.Duration
	pending      func() error // see Options.Pending
	log          *slog.Logger

	max     int // sessions open at once; 0 or less: no bound
	metrics *metrics
	// lazy opens a runtime at the session's first tool call instead of
	// its initialize (over HTTP, where a stray initialize must not cost a
	// browser context). Set before serving.
	lazy bool

	mu     sync.Mutex
	closed bool // no session is admitted nor goroutine started after
	byConn map[*mcp.ServerSession]*entry
	byID   map[string]*entry
	wg     sync.WaitGroup // every goroutine the registry started
}

// entry is one MCP session's runtime as it starts, runs and ends.
type entry struct {
	id     string
	ss     *mcp.ServerSession
	ctx    context.Context // ends with the session: its calls stop
	cancel context.CancelFunc
	began  time.Time

	ready   chan struct{} // closed when open has returned (or the session ended unopened)
	started atomic.Bool   // a runtime is being opened or is open
	rt      Runtime
	err     error

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

// middleware registers a session at its first request (initialize, or
// any request of the sessionless protocol), opens its runtime (at once,
// or at its first tool call when lazy) and counts every request of a
// session as activity (see reapIdle).
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
					r.end(ctx, e, "") // the SDK closes a session whose initialize failed
					return nil, err
				}
				if !r.lazy {
					r.start(e)
				}
				return res, nil
			}
		}
		if !r.lazy || method == "tools/call" {
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

// admit registers ss, unless MaxSessions are open or the server is
// closing, and ends it when its MCP session ends.
func (r *registry) admit(ss *mcp.ServerSession) (*entry, error) {
	now := time.Now()
	e := &entry{id: ss.ID(), ss: ss, ready: make(chan struct{}), began: now, lastSeen: now}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	r.mu.Lock()
	defer r.mu.Unlock()
	if old := r.byConn[ss]; old != nil { // two first requests at once: keep one
		e.cancel()
		return old, nil
	}
	if r.closed {
		e.cancel()
		return nil, &jsonrpc.Error{Code: CodeTooManySessions, Message: "the server is shutting down"}
	}
	if r.max > 0 && len(r.byConn) >= r.max {
		e.cancel()
		return nil, &jsonrpc.Error{Code: CodeTooManySessions,
			Message: fmt.Sprintf("too many MCP sessions: this server holds at most %d at once (--max-sessions); end one or try again later", r.max)}
	}
	r.byConn[ss] = e
	r.byID[e.id] = e
	r.goLocked("ending an MCP session", func() {
		_ = ss.Wait()
		r.end(context.Background(), e, EndClosed)
	})
	return e, nil
}

// goOwned runs fn in a goroutine the registry waits for, unless the
// registry has closed (then it returns false and runs nothing).
func (r *registry) goOwned(what string, fn func()) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.goLocked(what, fn)
	return true
}

// goLocked runs fn in a goroutine the registry waits for, logging a panic
// with its stack rather than ending the process. r.mu is held.
func (r *registry) goLocked(what string, fn func()) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer func() {
			if v := recover(); v != nil {
				r.log.Error("panic in "+what, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			}
		}()
		fn()
	}()
}

// start opens e's runtime in the background, once; it ends with its
// session.
func (r *registry) start(e *entry) {
	e.startOnce.Do(func() {
		e.started.Store(true)
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.closed {
			e.err = errNoSession
			close(e.ready)
			return
		}
		r.goLocked("opening an MCP session's browser", func() {
			defer close(e.ready)
			// A panic in open still leaves the session an answer.
			e.err = errOpenPanicked
			rt, err := r.open(e.ctx, e.id)
			e.rt, e.err = rt, err
			if err != nil {
				r.log.Warn("opening a session's browser", "session", e.id, "err", err)
				return
			}
			// Watched before ready closes: a change right after the first
			// call (a take) still reaches the session. Each watch ends with
			// the session; the registry waits for it.
			if r.metrics != nil {
				stop := r.metrics.countControl(e.ctx, rt.Gate().Control())
				r.mu.Lock()
				r.goLocked("counting an MCP session's control changes", func() { <-e.ctx.Done(); stop() })
				r.mu.Unlock()
			}
			if r.notify {
				stop := watchSession(e.ctx, e.ss, rt)
				r.mu.Lock()
				defer r.mu.Unlock()
				r.goLocked("notifying an MCP session", func() { <-e.ctx.Done(); stop() })
			}
		})
	})
}

// errOpenPanicked is the browser error of a session whose runtime's
// opening panicked (logged with its stack).
var errOpenPanicked = errors.New("opening the browser failed on an internal error")

func (r *registry) remove(e *entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byConn, e.ss)
	if r.byID[e.id] == e {
		delete(r.byID, e.id)
	}
}

// runtimeCloseTimeout bounds the closing of one session's runtime when
// the session ends on its own (the client left, idle): its browser
// context's disposal, its live view's websockets.
const runtimeCloseTimeout = 5 * time.Second

// end stops e's calls, closes its runtime within ctx (and at most
// runtimeCloseTimeout) and forgets it; once. A session whose runtime
// never started has nothing to close.
func (r *registry) end(ctx context.Context, e *entry, reason string) {
	e.endOnce.Do(func() {
		e.cancel()
		e.startOnce.Do(func() {
			e.err = errNoSession
			close(e.ready)
		})
		<-e.ready // open returns soon once e.ctx is done
		if e.rt != nil && reason != "" {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), runtimeCloseTimeout)
			defer cancel()
			if err := e.rt.Close(ctx, reason); err != nil {
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

// close ends every session's runtime (the server stops), admits no new
// one, and waits, within ctx, for every goroutine the registry started.
func (r *registry) close(ctx context.Context) error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, e := range r.all() {
		wg.Go(func() {
			r.end(ctx, e, EndClosed)
			_ = e.ss.Close()
		})
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		r.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("closing the MCP sessions: %d still closing: %w", r.count(), ctx.Err())
	}
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
	var poll <-chan time.Time // while the runtime opens: is it waiting on something outside?
	if r.pending != nil {
		t := time.NewTicker(pendingPoll)
		defer t.Stop()
		poll = t.C
	}
	for opened := false; !opened; {
		if r.pending != nil {
			select {
			case <-e.ready:
			default:
				if err := r.pending(); err != nil {
					return nil, callCtx, stop, err
				}
			}
		}
		select {
		case <-e.ready:
			opened = true
		case <-poll:
		case <-callCtx.Done():
			return nil, callCtx, stop, fmt.Errorf("waiting for the browser: %w", callCtx.Err())
		case <-wait.C:
			return nil, callCtx, stop, fmt.Errorf("the browser did not start within %s", r.startTimeout)
		}
	}
	if e.err != nil {
		return nil, callCtx, stop, e.err
	}
	return e.rt.Gate(), callCtx, stop, nil
}

// pendingPoll is how often a tool call waiting for its runtime asks
// Options.Pending.
const pendingPoll = 50 * time.Millisecond

// Fixed returns an OpenFunc whose every session drives g, which is already
// running (one User's runtime shared by their clients, as the demo's);
// nothing of it ends with a session.
func Fixed(g *gate.Gate) OpenFunc {
	return func(context.Context, string) (Runtime, error) { return fixed{g}, nil }
}

type fixed struct{ g *gate.Gate }

func (f fixed) Gate() *gate.Gate                  { return f.g }
func (fixed) Close(context.Context, string) error { return nil }
