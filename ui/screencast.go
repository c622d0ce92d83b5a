package ui

import (
	"context"
	"encoding/json"
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
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.wg.Add(1)
	l.clients[c] = struct{}{}
	if l.cast == nil {
		l.startCastLocked()
	}
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
	}
	l.log.Debug("live view client left", "clients", len(l.clients))
	l.wg.Done()
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
// returns another page and waiting while it returns none.
func (l *Live) runCast(ctx context.Context) {
	tick := time.NewTicker(pagePoll)
	defer tick.Stop()
	for ctx.Err() == nil {
		p := l.page()
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
					break watch
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

// broadcast sends one frame to every client.
func (l *Live) broadcast(f browser.ScreencastFrame) {
	b, err := json.Marshal(frameMsg{Type: "frame", Data: f.JPEG, Width: f.Width, Height: f.Height})
	if err != nil {
		return
	}
	l.mu.Lock()
	for c := range l.clients {
		c.pushFrame(b)
	}
	hook := l.onFrame
	l.mu.Unlock()
	if hook != nil {
		hook()
	}
}
