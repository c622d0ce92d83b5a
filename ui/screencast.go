package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
)

// pagePoll is how often a running screencast checks whether the page it
// shows is still the one Page returns, and how long it waits before trying
// again when there is no page.
const pagePoll = 500 * time.Millisecond

// cast is one screencast session: it runs from the first client's arrival
// until the last one leaves.
type cast struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// addClient registers c and starts the screencast for the first client. It
// reports false once the live view is shut down. Each added client holds
// l.wg until removeClient.
func (l *Live) addClient(c *client) bool {
	st := l.ctl.Status()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.wg.Add(1)
	l.clients[c] = struct{}{}
	if l.lastFrame != nil && l.proofOfLocked(c, st) != nil {
		// A page that does not repaint sends no new frame: the newcomer
		// gets the latest picture at once.
		c.pushFrame(l.lastFrame)
	}
	if l.cast == nil {
		l.startCastLocked()
	}
	l.ctl.SetViewers(len(l.clients))
	l.log.Debug("live view client connected", "clients", len(l.clients))
	return true
}

func (l *Live) removeClient(c *client) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.clients[c]; !ok {
		return
	}
	delete(l.clients, c)
	if len(l.clients) == 0 && l.cast != nil {
		l.cast.cancel()
		l.cast = nil
		l.lastFrame = nil
	}
	l.ctl.SetViewers(len(l.clients))
	l.log.Debug("live view client left", "clients", len(l.clients))
	l.wg.Done()
}

// recast starts the screencast again, when clients are watching, after the
// pages were resized for the User's screen: a screencast sends a frame only
// when the page repaints, and a page whose viewport grew or shrank by a few
// blank pixels may not, leaving the viewers a picture of the wrong shape.
// A new screencast starts with a frame.
func (l *Live) recast() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cast == nil || l.closed {
		return
	}
	l.cast.cancel()
	l.startCastLocked()
}

// startCastLocked starts a screencast session. It first waits for the one
// before it to stop, so that an old StopScreencast never ends a new one.
// l.mu must be held.
func (l *Live) startCastLocked() {
	var prev <-chan struct{}
	if l.lastCast != nil {
		prev = l.lastCast
	}
	ctx, cancel := context.WithCancel(l.ctx)
	cs := &cast{cancel: cancel, done: make(chan struct{})}
	l.cast = cs
	l.lastCast = cs.done
	l.wg.Go(func() {
		defer close(cs.done)
		if prev != nil {
			select {
			case <-prev:
			case <-ctx.Done():
				return
			}
		}
		l.runCast(ctx)
	})
}

// runCast streams the page Page returns until ctx ends, switching when Page
// returns another page (the active tab changed) and waiting while it
// returns none. Clients get the state again when the shown tab or its
// address changes.
func (l *Live) runCast(ctx context.Context) {
	tick := time.NewTicker(pagePoll)
	defer tick.Stop()
	shown := l.shownKey() // clients got it with their first state
	for ctx.Err() == nil {
		p := l.page()
		if k := l.shownKey(); k != shown {
			shown = k
			l.broadcastState()
		}
		if p == nil {
			select {
			case <-tick.C:
				continue
			case <-ctx.Done():
				return
			}
		}
		pctx, stop := context.WithCancel(ctx)
		ended := make(chan struct{})
		go func() {
			defer close(ended)
			if err := p.Screencast(pctx, l.broadcast); err != nil && pctx.Err() == nil {
				l.log.Debug("live view screencast ended", "err", err)
			}
		}()
	watch:
		for {
			select {
			case <-ended:
				break watch
			case <-tick.C:
				if l.page() != p {
					l.mu.Lock()
					l.lastFrame = nil
					l.mu.Unlock()
					break watch
				}
				l.checkDownloads(p) // downloads.go
				if k := l.shownKey(); k != shown {
					shown = k
					l.broadcastState()
				}
			case <-ctx.Done():
				break watch
			}
		}
		stop()
		<-ended
		if ctx.Err() == nil && l.page() == p {
			// The page's screencast ended on its own (page closed): wait
			// before asking again.
			select {
			case <-tick.C:
			case <-ctx.Done():
			}
		}
	}
}

// broadcast sends one frame to every client whose User proved their
// presence in it: the picture shows what the User types.
func (l *Live) broadcast(f browser.ScreencastFrame) {
	b, err := json.Marshal(frameMsg{Type: "frame", Data: f.JPEG, Width: f.Width, Height: f.Height})
	if err != nil {
		return
	}
	st := l.ctl.Status()
	l.mu.Lock()
	l.lastFrame = b
	for c := range l.clients {
		if l.proofOfLocked(c, st) != nil {
			c.pushFrame(b)
		}
	}
	hook := l.onFrame
	l.mu.Unlock()
	select {
	case l.framed <- struct{}{}:
	default:
	}
	if hook != nil {
		hook()
	}
}

// shownKey sums up what the state says of the shown tab (its address, its
// dialog), to tell when clients need it again.
func (l *Live) shownKey() string {
	st := l.state()
	k := st.URL + "\x00" + st.Lost
	if st.Dialog != nil {
		k += "\x00" + st.Dialog.Type + "\x00" + st.Dialog.Message
	}
	if st.FileRequest != nil {
		k += fmt.Sprintf("\x00file %d", st.FileRequest.ID)
	}
	for _, d := range st.Downloads {
		k += "\x00download " + d.ID
	}
	for _, t := range st.Tabs {
		k += "\x00" + t.URL + "\x00" + t.Title + "\x00" + map[bool]string{true: "*"}[t.Active]
	}
	return k
}

// lost says why the page cannot be shown ("" when it can): its tab's
// renderer crashed, or its browser is gone.
func (l *Live) lost() string {
	p := l.page()
	switch {
	case p == nil:
		return ""
	case p.BrowserGone() != nil:
		return lostBrowserGone
	case p.Crashed():
		return lostTabCrashed
	}
	return ""
}
