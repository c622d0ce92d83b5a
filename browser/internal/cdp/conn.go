package browser

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// conn multiplexes the flat CDP sessions of one browser over a chromedp
// Transport. chromedp's own Browser routes only the sessions it created, so
// the auto-attached sessions of out-of-process iframes and popups, which we
// must configure before they run, need this small router of our own.
type conn struct {
	tr   chromedp.Transport
	next atomic.Int64

	rootSession *session // the browser session, never detached

	mu       sync.Mutex
	pending  map[int64]chan *cdproto.Message
	sessions map[target.SessionID]*session
	err      error // why the connection ended; set before done closes

	done chan struct{}
}

func newConn(tr chromedp.Transport) *conn {
	c := &conn{
		tr:       tr,
		pending:  make(map[int64]chan *cdproto.Message),
		sessions: make(map[target.SessionID]*session),
		done:     make(chan struct{}),
	}
	c.rootSession = newSession(c, "", "", "browser")
	c.sessions[""] = c.rootSession
	return c
}

func (c *conn) root() *session { return c.rootSession }

// readLoop routes replies to their callers and events to their sessions, in
// the order the browser sent them. It returns when the transport fails.
func (c *conn) readLoop(ctx context.Context) {
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
			c.sessions = map[target.SessionID]*session{}
			c.mu.Unlock()
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
				c.removeSession(ev.SessionID)
			}
		}
	}
}

func (c *conn) addSession(id target.SessionID, targetID target.ID, kind string) *session {
	s := newSession(c, id, targetID, kind)
	c.mu.Lock()
	c.sessions[id] = s
	c.mu.Unlock()
	return s
}

func (c *conn) removeSession(id target.SessionID) {
	c.mu.Lock()
	s := c.sessions[id]
	delete(c.sessions, id)
	c.mu.Unlock()
	if s != nil {
		s.close()
	}
}

// send writes one command and returns the channel its reply will arrive on.
func (c *conn) send(ctx context.Context, sessionID target.SessionID, method string, params any) (int64, chan *cdproto.Message, error) {
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
func (c *conn) wait(ctx context.Context, id int64, ch chan *cdproto.Message, gone <-chan struct{}, method string, res any) error {
	select {
	case <-gone:
		c.forget(id)
		if err := c.deadErr(); err != nil {
			return err
		}
		return fmt.Errorf("%s: %w", method, ErrFrameGone)
	case <-ctx.Done():
		c.forget(id)
		return ctx.Err()
	case <-c.done:
		return c.closedErr()
	case reply, ok := <-ch:
		if !ok {
			return c.closedErr()
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

func (c *conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// deadErr is why the connection ended, or nil while it lives.
func (c *conn) deadErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

var unmarshalOpts = chromedp.DefaultUnmarshalOptions

func (c *conn) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	return ErrBrowserGone
}

// session is one flat CDP session: the browser itself, a page, or an
// out-of-process iframe. It satisfies [cdp.Session], so the typed commands of
// cdproto work on it: cdp.Call(ctx, s, page.Navigate, params).
// A Session is safe for concurrent use.
type session struct {
	c        *conn
	id       target.SessionID
	targetID target.ID
	kind     string // "browser", "page", "iframe", ...

	mu       sync.Mutex
	handlers map[string][]func(jsonv2.Value)
	subs     map[string]map[*subscription]struct{}
	closed   bool
	gone     chan struct{}
}

var _ cdp.Session = (*session)(nil)

func newSession(c *conn, id target.SessionID, targetID target.ID, kind string) *session {
	return &session{c: c, id: id, targetID: targetID, kind: kind,
		handlers: map[string][]func(jsonv2.Value){},
		subs:     map[string]map[*subscription]struct{}{},
		gone:     make(chan struct{}),
	}
}

// ID is the CDP session id ("" for the browser session).
func (s *session) ID() target.SessionID { return s.id }

// TargetID is the target this session is attached to.
func (s *session) TargetID() target.ID { return s.targetID }

// Kind is the target type: "browser", "page", "iframe", "worker", ...
func (s *session) Kind() string { return s.kind }

// Done is closed when the session detaches.
func (s *session) Done() <-chan struct{} { return s.gone }

// Call runs one command in this session.
func (s *session) Call(ctx context.Context, method string, params, res any) error {
	id, ch, err := s.c.send(ctx, s.id, method, params)
	if err != nil {
		return err
	}
	return s.c.wait(ctx, id, ch, s.gone, method, res)
}

// Subscribe buffers every later event of method until cancel is called.
func (s *session) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	sub := newSubscription()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		sub.finish()
		return sub.out, func() {}
	}
	if s.subs[method] == nil {
		s.subs[method] = map[*subscription]struct{}{}
	}
	s.subs[method][sub] = struct{}{}
	s.mu.Unlock()
	return sub.out, func() {
		s.mu.Lock()
		delete(s.subs[method], sub)
		s.mu.Unlock()
		sub.stop()
	}
}

// on registers a handler run on the read loop, in event order. Handlers must
// not block: anything that calls the browser runs in its own goroutine.
func (s *session) on(method string, fn func(jsonv2.Value)) {
	s.mu.Lock()
	s.handlers[method] = append(s.handlers[method], fn)
	s.mu.Unlock()
}

func (s *session) dispatch(method string, params jsonv2.Value) {
	s.mu.Lock()
	hs := s.handlers[method]
	var subs []*subscription
	for sub := range s.subs[method] {
		subs = append(subs, sub)
	}
	s.mu.Unlock()
	for _, h := range hs {
		h(params)
	}
	for _, sub := range subs {
		sub.push(params)
	}
}

func (s *session) close() {
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
			sub.finish()
		}
	}
	close(s.gone)
}

// subscription queues events without bound so that the read loop never waits
// on a slow reader.
type subscription struct {
	out     chan jsonv2.Value
	stopped chan struct{} // the reader went away: drop the rest
	mu      sync.Mutex
	cond    *sync.Cond
	q       []jsonv2.Value
	done    bool
}

func newSubscription() *subscription {
	sub := &subscription{out: make(chan jsonv2.Value), stopped: make(chan struct{})}
	sub.cond = sync.NewCond(&sub.mu)
	go sub.pump()
	return sub
}

func (s *subscription) push(v jsonv2.Value) {
	s.mu.Lock()
	if !s.done {
		s.q = append(s.q, v)
		s.cond.Signal()
	}
	s.mu.Unlock()
}

func (s *subscription) finish() {
	s.mu.Lock()
	s.done = true
	s.cond.Signal()
	s.mu.Unlock()
}

func (s *subscription) stop() {
	s.mu.Lock()
	if !s.done {
		s.done = true
		close(s.stopped)
		s.cond.Signal()
	}
	s.mu.Unlock()
}

func (s *subscription) pump() {
	defer close(s.out)
	for {
		s.mu.Lock()
		for len(s.q) == 0 && !s.done {
			s.cond.Wait()
		}
		if len(s.q) == 0 {
			s.mu.Unlock()
			return
		}
		v := s.q[0]
		s.q = s.q[1:]
		s.mu.Unlock()
		select {
		case s.out <- v:
		case <-s.stopped:
			return
		}
	}
}

func decode[E any](raw jsonv2.Value) (E, bool) {
	var ev E
	err := jsonv2.Unmarshal(raw, &ev, chromedp.DefaultUnmarshalOptions)
	return ev, err == nil
}
