package cdp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/poppy-browser/poppy-browser/internal/queue"
)

// The failures the router itself can tell; package browser re-exports them.
var (
	// ErrBrowserGone: the connection to the browser ended.
	ErrBrowserGone = errors.New("the browser is gone")
	// ErrFrameGone: the session of the target detached.
	ErrFrameGone = errors.New("frame is gone")
)

// Conn multiplexes the flat CDP sessions of one browser over a chromedp
// Transport. chromedp's own Browser routes only the sessions it created, so
// the auto-attached sessions of out-of-process iframes and popups, which we
// must configure before they run, need this small router of our own.
type Conn struct {
	tr   chromedp.Transport
	next atomic.Int64

	rootSession *Session // the browser session, never detached

	mu       sync.Mutex
	pending  map[int64]chan *cdproto.Message
	sessions map[target.SessionID]*Session
	err      error // why the connection ended; set before done closes

	done chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// NewConn routes the messages of tr; start [Conn.ReadLoop] to run it.
func NewConn(tr chromedp.Transport) *Conn {
	c := &Conn{
		tr:       tr,
		pending:  make(map[int64]chan *cdproto.Message),
		sessions: make(map[target.SessionID]*Session),
		done:     make(chan struct{}),
	}
	c.rootSession = newSession(c, "", "", "browser")
	c.sessions[""] = c.rootSession
	return c
}

// Root is the browser session, never detached.
func (c *Conn) Root() *Session { return c.rootSession }

// ReadLoop routes replies to their callers and events to their sessions, in
// the order the browser sent them. It returns when the transport fails.
func (c *Conn) ReadLoop(ctx context.Context) {
	defer close(c.done)
	for {
		msg := new(cdproto.Message)
		if err := c.tr.Read(ctx, msg); err != nil {
			c.mu.Lock()
			c.err = fmt.Errorf("%w: %v", ErrBrowserGone, err)
			for id, ch := range c.pending {
				close(ch)
				delete(c.pending, id)
			}
			sessions := c.sessions
			c.sessions = map[target.SessionID]*Session{}
			c.mu.Unlock()
			// Close our end at once: a peer that closed its side (a pool
			// stopping) must not wait on a socket left in CLOSE-WAIT.
			_ = c.Close()
			for _, s := range sessions {
				s.close()
			}
			return
		}
		if msg.ID != 0 {
			c.mu.Lock()
			ch := c.pending[msg.ID]
			delete(c.pending, msg.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- msg
			}
			continue
		}
		c.mu.Lock()
		s := c.sessions[msg.SessionID]
		c.mu.Unlock()
		if s != nil {
			s.dispatch(string(msg.Method), msg.Params)
		}
		if string(msg.Method) == target.DetachedFromTarget.Method {
			var ev target.EventDetachedFromTarget
			if jsonv2.Unmarshal(msg.Params, &ev, chromedp.DefaultUnmarshalOptions) == nil {
				c.RemoveSession(ev.SessionID)
			}
		}
	}
}

// AddSession routes the events of a newly attached session to it.
func (c *Conn) AddSession(id target.SessionID, targetID target.ID, kind string) *Session {
	s := newSession(c, id, targetID, kind)
	c.mu.Lock()
	c.sessions[id] = s
	c.mu.Unlock()
	return s
}

// Len is the number of sessions routed now, the browser's own included.
func (c *Conn) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sessions)
}

// RemoveSession stops routing to a detached session and closes it.
func (c *Conn) RemoveSession(id target.SessionID) {
	c.mu.Lock()
	s := c.sessions[id]
	delete(c.sessions, id)
	c.mu.Unlock()
	if s != nil {
		s.close()
	}
}

// send writes one command and returns the channel its reply will arrive on.
func (c *Conn) send(ctx context.Context, sessionID target.SessionID, method string, params any) (int64, chan *cdproto.Message, error) {
	var buf []byte
	if params != nil {
		var err error
		if buf, err = jsonv2.Marshal(params, chromedp.DefaultMarshalOptions); err != nil {
			return 0, nil, fmt.Errorf("%s: encoding params: %w", method, err)
		}
	}
	id := c.next.Add(1)
	ch := make(chan *cdproto.Message, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return 0, nil, err
	}
	c.pending[id] = ch
	c.mu.Unlock()
	msg := &cdproto.Message{ID: id, SessionID: sessionID, Method: cdproto.MethodType(method), Params: buf}
	if err := c.tr.Write(ctx, msg); err != nil {
		c.forget(id)
		return 0, nil, fmt.Errorf("%s: %w", method, err)
	}
	return id, ch, nil
}

// wait takes the reply of command id and decodes its result into res.
// A close of gone (the session detached) ends the wait with ErrFrameGone.
func (c *Conn) wait(ctx context.Context, id int64, ch chan *cdproto.Message, gone <-chan struct{}, method string, res any) error {
	select {
	case <-gone:
		c.forget(id)
		if err := c.Err(); err != nil {
			return err
		}
		return fmt.Errorf("%s: %w", method, ErrFrameGone)
	case <-ctx.Done():
		c.forget(id)
		return ctx.Err()
	case <-c.done:
		return c.ClosedErr()
	case reply, ok := <-ch:
		if !ok {
			return c.ClosedErr()
		}
		if reply.Error != nil {
			return fmt.Errorf("%s: %w", method, reply.Error)
		}
		if res != nil && len(reply.Result) > 0 {
			if err := jsonv2.Unmarshal(reply.Result, res, chromedp.DefaultUnmarshalOptions); err != nil {
				return fmt.Errorf("%s: decoding result: %w", method, err)
			}
		}
		return nil
	}
}

// Done is closed when the connection has ended; [Conn.Err] says why.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Close closes the transport; ReadLoop then ends. Later calls return the
// first one's error.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.tr.Close() })
	return c.closeErr
}

func (c *Conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// Err is why the connection ended (wrapping [ErrBrowserGone]), or nil
// while it lives.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// ClosedErr is Err for a connection known to have ended: never nil.
func (c *Conn) ClosedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	return ErrBrowserGone
}

// Session is one flat CDP session: the browser itself, a page, or an
// out-of-process iframe. It satisfies [cdp.Session], so the typed commands of
// cdproto work on it: cdp.Call(ctx, s, page.Navigate, params).
// A Session is safe for concurrent use.
type Session struct {
	c        *Conn
	id       target.SessionID
	targetID target.ID
	kind     string // "browser", "page", "iframe", ...

	mu       sync.Mutex
	handlers map[string][]func(jsonv2.Value)
	subs     map[string]map[*queue.Queue[jsonv2.Value]]struct{}
	closed   bool
	gone     chan struct{}
}

var _ cdp.Session = (*Session)(nil)

func newSession(c *Conn, id target.SessionID, targetID target.ID, kind string) *Session {
	return &Session{c: c, id: id, targetID: targetID, kind: kind,
		handlers: map[string][]func(jsonv2.Value){},
		subs:     map[string]map[*queue.Queue[jsonv2.Value]]struct{}{},
		gone:     make(chan struct{}),
	}
}

// ID is the CDP session id ("" for the browser session).
func (s *Session) ID() target.SessionID { return s.id }

// TargetID is the target this session is attached to.
func (s *Session) TargetID() target.ID { return s.targetID }

// Kind is the target type: "browser", "page", "iframe", "worker", ...
func (s *Session) Kind() string { return s.kind }

// Done is closed when the session detaches.
func (s *Session) Done() <-chan struct{} { return s.gone }

// Call runs one command in this session.
func (s *Session) Call(ctx context.Context, method string, params, res any) error {
	id, ch, err := s.c.send(ctx, s.id, method, params)
	if err != nil {
		return err
	}
	return s.c.wait(ctx, id, ch, s.gone, method, res)
}

// Subscribe buffers every later event of method until cancel is called;
// the channel closes when the session detaches, after its last events.
func (s *Session) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	q := queue.New[jsonv2.Value]()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		q.Close()
		return q.Out(), q.Stop
	}
	if s.subs[method] == nil {
		s.subs[method] = map[*queue.Queue[jsonv2.Value]]struct{}{}
	}
	s.subs[method][q] = struct{}{}
	s.mu.Unlock()
	return q.Out(), func() {
		s.mu.Lock()
		delete(s.subs[method], q)
		s.mu.Unlock()
		q.Stop()
	}
}

// Conn is the connection the session travels on.
func (s *Session) Conn() *Conn { return s.c }

// Send writes one command without waiting: its reply arrives on the
// channel, which closes if the connection ends first. Pair it with
// [Session.Wait], or [Session.Forget] the id when the reply is not wanted.
// Sending several before waiting keeps their order without a round trip
// each.
func (s *Session) Send(ctx context.Context, method string, params any) (int64, chan *cdproto.Message, error) {
	return s.c.send(ctx, s.id, method, params)
}

// Wait takes the reply of a command Sent in this session and decodes its
// result into res; the session detaching ends it with [ErrFrameGone].
func (s *Session) Wait(ctx context.Context, id int64, ch chan *cdproto.Message, method string, res any) error {
	return s.c.wait(ctx, id, ch, s.gone, method, res)
}

// Forget drops a command's reply that nobody will read.
func (s *Session) Forget(id int64) { s.c.forget(id) }

// On registers a handler run on the read loop, in event order. Handlers must
// not block: anything that calls the browser runs in its own goroutine.
func (s *Session) On(method string, fn func(jsonv2.Value)) {
	s.mu.Lock()
	s.handlers[method] = append(s.handlers[method], fn)
	s.mu.Unlock()
}

func (s *Session) dispatch(method string, params jsonv2.Value) {
	s.mu.Lock()
	hs := s.handlers[method]
	var subs []*queue.Queue[jsonv2.Value]
	for sub := range s.subs[method] {
		subs = append(subs, sub)
	}
	s.mu.Unlock()
	for _, h := range hs {
		h(params)
	}
	for _, sub := range subs {
		sub.Push(params)
	}
}

func (s *Session) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	subs := s.subs
	s.subs = nil
	s.mu.Unlock()
	for _, m := range subs {
		for sub := range m {
			sub.Close()
		}
	}
	close(s.gone)
}

// Decode reads an event's params as E; false when they do not fit.
func Decode[E any](raw jsonv2.Value) (E, bool) {
	var ev E
	err := jsonv2.Unmarshal(raw, &ev, chromedp.DefaultUnmarshalOptions)
	return ev, err == nil
}
