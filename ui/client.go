package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

const (
	writeTimeout  = 10 * time.Second
	pongTimeout   = 60 * time.Second
	pingInterval  = 25 * time.Second
	actionTimeout = 10 * time.Second // one take, hand back, input or locate
	maxMessage    = 64 << 10
	maxText       = 16 << 10
	sendQueue     = 64
)

// client is one websocket. Its reader runs on the handler's goroutine and
// handles messages in order; its writer owns every write.
type client struct {
	conn  *websocket.Conn
	send  chan []byte // state, locate and error messages, in order
	frame chan []byte // the latest frame not yet written (newer replaces older)
	// flushed receives a channel to close once every message queued before
	// it is written (flush).
	flushed chan chan struct{}
	done    chan struct{}
	once    sync.Once

	device    *control.Device    // the screen it reported (viewer message); guarded by Live.mu
	lastTouch browser.TouchPoint // where the finger was, for touch as mouse; reader only
	taps      atomic.Uint64      // counts taps, so only the latest looks for the focus
	// readOnly: the viewer came in by a read-only link; it watches and the
	// server refuses its take, input and returns.
	readOnly bool
	// login is the hash of the live login it came in with (login.go), when
	// hasLogin (not the per-run token); ending is set once it is told the
	// login ended.
	login    [32]byte
	hasLogin bool
	// sendMu orders queue against queueLast, so nothing lands after the
	// last message.
	sendMu sync.Mutex
	// stateMu makes reading the state and queueing it one step
	// (queueState), so a state read before a change (a proof revoked)
	// never lands after the one read after it.
	stateMu sync.Mutex
	ending  atomic.Bool
	// proof is the User's proof of presence made in this view, and
	// pending the passkey ceremony begun in it (presence.go); both
	// guarded by Live.mu.
	proof   *viewProof
	pending *pendingCeremony
	// upload is the files it is sending the page (files.go); reader only.
	upload *upload
	// unpaired: the proof this view had ended because its device was
	// unpaired (`pair --revoke`); until a new proof (guarded by Live.mu).
	unpaired bool
}

func (c *client) close() {
	c.once.Do(func() {
		close(c.done)
		_ = c.conn.Close()
	})
}

// queue sends a message; a client too slow to take its messages is closed.
// Nothing is sent after a client is told its login ended (queueLast).
func (c *client) queue(v any) {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	if c.ending.Load() {
		return
	}
	c.enqueue(v)
}

// queueLast sends v as the client's last message: everything queued
// before it is still written, nothing after it (frames included).
func (c *client) queueLast(v any) bool {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	if !c.ending.CompareAndSwap(false, true) {
		return false
	}
	c.enqueue(v)
	return true
}

func (c *client) enqueue(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	select {
	case c.send <- b:
	case <-c.done:
	default:
		c.close()
	}
}

// pushFrame replaces any frame still waiting, so a slow client skips
// pictures instead of queueing them.
func (c *client) pushFrame(b []byte) {
	for {
		select {
		case c.frame <- b:
			return
		default:
		}
		select {
		case <-c.frame:
		default:
		}
	}
}

func (c *client) writeLoop() {
	ping := time.NewTicker(pingInterval)
	defer ping.Stop()
	defer c.close()
	for {
		var b []byte
		select {
		case <-c.done:
			return
		case b = <-c.send:
		case b = <-c.frame:
			if c.ending.Load() {
				continue // its last message is queued: no picture after it
			}
		case ch := <-c.flushed:
			c.writeQueued()
			close(ch)
			continue
		case <-ping.C:
			if err := c.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeTimeout)); err != nil {
				return
			}
			continue
		}
		_ = c.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
		if err := c.conn.WriteMessage(websocket.TextMessage, b); err != nil {
			return
		}
	}
}

func (l *Live) serveWS(w http.ResponseWriter, r *http.Request) {
	up := websocket.Upgrader{
		ReadBufferSize:  4096,
		WriteBufferSize: 64 << 10,
		// guard already checked Origin against the host; check again here so
		// the upgrade can never happen without it.
		CheckOrigin: func(r *http.Request) bool { return l.refuse(r) == "" },
		// A login's secret comes as a second offered subprotocol; the
		// answer names only this one.
		Subprotocols: []string{viewerProtocol},
	}
	key, login, hasLogin := l.loginOf(r)
	if l.tokenOK(r.URL.Query().Get("token")) {
		hasLogin = false
	}
	connected := false
	if hasLogin && login.app { // applogin.go
		release, why := l.admitApp(key, r.Header.Get("Origin"), l.remote.selfOrigin(r.Host))
		if why != "" {
			l.refuseApp(w, why)
			return
		}
		defer func() { release(connected) }()
	}
	conn, err := up.Upgrade(w, r, nil)
	if err != nil {
		l.log.Debug("live view upgrade failed", "err", err)
		return
	}
	connected = true
	c := &client{
		conn:    conn,
		send:    make(chan []byte, sendQueue),
		frame:   make(chan []byte, 1),
		flushed: make(chan chan struct{}),
		done:    make(chan struct{}),
	}
	if hasLogin {
		c.login, c.hasLogin = key, true
		l.mu.Lock()
		c.readOnly = login.readOnly
		l.mu.Unlock()
	}
	l.proveOnConnect(c, r)
	if !l.addClient(c) {
		c.close()
		return
	}
	defer l.removeClient(c)
	defer c.close()

	// Every change of control is pushed to this viewer in its own words
	// (stateFor), from a watch that ends with the connection.
	stopWatch := control.Watch(l.ctx, l.ctl, func(control.Event) { l.queueState(c) })
	defer stopWatch()
	l.wg.Go(c.writeLoop)
	l.queueState(c)
	st := l.ctl.Status()
	l.mu.Lock()
	if l.alert != "" {
		c.queue(errorMsg{Type: "error", Message: l.alert})
	}
	if l.step != nil && l.proofOfLocked(c, st) != nil {
		c.queue(stepMsg{Type: "step", Box: l.step})
	}
	l.mu.Unlock()

	ctx, cancel := context.WithCancel(l.ctx)
	defer cancel()
	context.AfterFunc(ctx, c.close)
	conn.SetReadLimit(maxMessage)
	_ = conn.SetReadDeadline(time.Now().Add(pongTimeout))
	conn.SetPongHandler(func(string) error { return conn.SetReadDeadline(time.Now().Add(pongTimeout)) })
	for {
		_, data, err := conn.ReadMessage()
		if err != nil {
			return
		}
		_ = conn.SetReadDeadline(time.Now().Add(pongTimeout))
		var m inMsg
		if err := json.Unmarshal(data, &m); err != nil {
			c.queue(errorMsg{Type: "error", Message: "not a JSON message"})
			continue
		}
		l.handleSafely(ctx, c, m)
	}
}

// handleSafely is handle, with a panic turned into an error for this
// viewer and a log line with its stack: a bug in one message must not end
// the process (and with it the User's control).
func (l *Live) handleSafely(ctx context.Context, c *client, m inMsg) {
	defer func() {
		if v := recover(); v != nil {
			l.log.Error("panic in the live view", "type", m.Type, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			c.queue(errorMsg{Type: "error", Message: "the runtime failed on that message (an internal error); try again"})
		}
	}()
	l.handle(ctx, c, m)
}

func (l *Live) state() stateMsg {
	st := l.ctl.Status()
	m := stateMsg{Type: "state", Controller: st.Controller, Offer: st.Offer, Company: l.company, Story: l.storyOf(st)}
	if o := st.Offer; o != nil && o.Step != nil && o.Step.Box != nil && st.Controller == spec.ControllerAgent {
		b := o.Step.Box
		m.StepBox = &boxMsg{X: b.X, Y: b.Y, Width: b.Width, Height: b.Height}
	}
	if p := l.page(); p != nil {
		m.URL = p.URL()
		m.Tabs = tabsOf(p)
		if d, open := p.Dialog(); open {
			m.Dialog = &dialogMsg{Type: d.Type, Message: d.Message}
		}
		m.FileRequest = l.fileRequest(p, st)
		m.Downloads = l.downloadsFor(st)
	}
	m.Lost = l.lost()
	return m
}

// stateFor is the state as client c sees it. Until the User proved
// their presence in c it is the offer card only: who holds control, the
// offer (the agent's reason, the step's words), the Company, what
// happened last in the agent's and the User's own words (the story) and
// the presence; nothing of the page (its address, tabs, dialog, the
// step's place on it).
func (l *Live) stateFor(c *client) stateMsg {
	st := l.ctl.Status()
	pm := l.presenceFor(c, st)
	if !pm.Proved {
		return stateMsg{Type: "state", Controller: st.Controller, Offer: st.Offer, Company: l.company, Story: l.storyOf(st), Presence: pm, Lost: l.lost()}
	}
	m := l.state()
	m.Viewer = l.viewerFor(c, st)
	m.Presence = pm
	return m
}

// queueState queues the state as c sees it now, in the order the
// states were read.
func (l *Live) queueState(c *client) {
	c.stateMu.Lock()
	defer c.stateMu.Unlock()
	c.queue(l.stateFor(c))
}

// broadcastState sends the state to every client (the shown tab, its
// address or the viewer in control changed).
func (l *Live) broadcastState() {
	l.mu.Lock()
	cs := make([]*client, 0, len(l.clients))
	for c := range l.clients {
		cs = append(cs, c)
	}
	l.mu.Unlock()
	for _, c := range cs {
		l.queueState(c)
	}
}
