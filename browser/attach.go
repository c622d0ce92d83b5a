package browser

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	cdpconn "github.com/poppy-browser/poppy-browser/browser/internal/cdp"
)

// configureTimeout bounds the configuration of a new target. The target
// runs once its commands are sent; this only bounds waiting for replies.
const configureTimeout = 10 * time.Second

// attached configures a newly attached target while it waits for us, then
// lets it run: scripts and child auto-attach are in place before any of the
// page's own code. It runs on the read loop and must not block.
func (b *Browser) attached(parent *cdpconn.Session, raw jsonv2.Value) {
	ev, ok := cdpconn.Decode[target.EventAttachedToTarget](raw)
	if !ok || ev.TargetInfo == nil {
		return
	}
	info := ev.TargetInfo
	s := b.conn.AddSession(ev.SessionID, info.TargetID, info.Type)
	switch info.Type {
	case "page", "iframe":
	default:
		// Workers and the like: nothing of ours runs there; let them go.
		b.wg.Go(func() {
			ctx, cancel := context.WithTimeout(b.ctx, configureTimeout)
			defer cancel()
			_ = s.Call(ctx, runtime.CommandRunIfWaitingForDebugger, nil, nil)
		})
		return
	}
	t := newTgt(b, s, parent, info)
	b.mu.Lock()
	b.targets[s.ID()] = t
	var p *Page
	if info.Type == "page" {
		p = newPage(b, t, info)
		t.page = p
		b.pages[info.TargetID] = p
		p.tabs = b.groupLocked(info.BrowserContextID)
	} else if pt := b.targets[parent.ID()]; pt != nil {
		t.page = pt.page
	}
	b.mu.Unlock()
	if t.page != nil {
		t.page.watch(t)
	}
	if p != nil {
		p.tabs.add(p)
	}
	b.wg.Go(func() {
		ctx, cancel := context.WithTimeout(b.ctx, configureTimeout)
		defer cancel()
		if err := t.configure(ctx); err != nil && !isGone(err) {
			b.log.Warn("configuring target", "type", info.Type, "err", err)
		}
		close(t.ready)
		if p == nil {
			return
		}
		b.newPageWindowInput(ctx, p)
		b.newPageDevice(ctx, p)
		b.mu.Lock()
		subs := append([]chan *Page(nil), b.pageSubs...)
		b.mu.Unlock()
		for _, ch := range subs {
			select {
			case ch <- p:
			default:
			}
		}
	})
}

// detached forgets a target that went away, and every target attached
// through it: when an out-of-process iframe goes, the iframes nested in it
// go too, and the browser does not always say so for each.
func (b *Browser) detached(raw jsonv2.Value) {
	ev, ok := cdpconn.Decode[target.EventDetachedFromTarget](raw)
	if !ok {
		return
	}
	b.forget(ev.SessionID)
}

func (b *Browser) forget(id target.SessionID) {
	b.mu.Lock()
	gone := map[target.SessionID]*tgt{}
	var walk func(id target.SessionID)
	walk = func(id target.SessionID) {
		t := b.targets[id]
		if t == nil || gone[id] != nil {
			return
		}
		gone[id] = t
		delete(b.targets, id)
		for cid, c := range b.targets {
			if c.parent == t.s {
				walk(cid)
			}
		}
	}
	walk(id)
	var closed []*Page
	for _, t := range gone {
		if t.page != nil && t.page.t == t {
			delete(b.pages, t.s.TargetID())
			closed = append(closed, t.page)
		}
	}
	b.mu.Unlock()
	// The tab list changes before the sessions close: whoever waits for a
	// closed tab's Done finds the list without it.
	for _, p := range closed {
		p.tabs.remove(p)
	}
	for sid := range gone {
		b.conn.RemoveSession(sid)
	}
}

// watchTargets follows what the browser process says of every target:
// titles, crashes and targets that are destroyed without a detach.
func (b *Browser) watchTargets(root *cdpconn.Session) {
	root.On(target.TargetInfoChanged.Method, func(raw jsonv2.Value) {
		ev, ok := cdpconn.Decode[target.EventTargetInfoChanged](raw)
		if !ok || ev.TargetInfo == nil {
			return
		}
		if p := b.pageByTarget(ev.TargetInfo.TargetID); p != nil {
			p.mu.Lock()
			p.title = ev.TargetInfo.Title
			p.mu.Unlock()
			p.tabs.touch()
		}
	})
	root.On(target.TargetCrashed.Method, func(raw jsonv2.Value) {
		ev, ok := cdpconn.Decode[target.EventTargetCrashed](raw)
		if !ok {
			return
		}
		for _, t := range b.allTargets() {
			if t.s.TargetID() == ev.TargetID {
				t.mu.Lock()
				t.crashedLocked()
				t.notifyLocked()
				t.mu.Unlock()
				if t.page != nil && t.page.t == t {
					t.page.setCrashed()
				}
			}
		}
	})
	root.On(target.TargetDestroyed.Method, func(raw jsonv2.Value) {
		ev, ok := cdpconn.Decode[target.EventTargetDestroyed](raw)
		if !ok {
			return
		}
		for _, t := range b.allTargets() {
			if t.s.TargetID() == ev.TargetID {
				b.forget(t.s.ID())
			}
		}
	})
}

// targetsOfPage lists the targets (the page and its out-of-process iframes).
func (b *Browser) targetsOfPage(p *Page) []*tgt {
	b.mu.Lock()
	defer b.mu.Unlock()
	var ts []*tgt
	for _, t := range b.targets {
		if t.page == p {
			ts = append(ts, t)
		}
	}
	return ts
}

func (b *Browser) allTargets() []*tgt {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.targetList()
}

// groupLocked is the tab group of a browser context, made on first use.
func (b *Browser) groupLocked(id cdp.BrowserContextID) *Tabs {
	g := b.groups[id]
	if g == nil {
		g = newTabs(b, id)
		b.groups[id] = g
	}
	return g
}
