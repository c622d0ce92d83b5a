package browser

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
)

// Tabs are the open pages of one browser context (the tab [Browser.NewPage]
// opened and every tab opened from it or beside it: target=_blank links,
// window.open, with or without noopener, tabs the User opens), in the order
// they opened, with one of them active.
//
// A new tab becomes the active one, as in a browser window, whoever opened
// it. When the active tab closes (window.close(), a closed popup, Close),
// the tab that opened it becomes active if it is still open, else the last
// tab. Which tab the agent acts in is the caller's decision: Select changes
// it. Safe for concurrent use.
type Tabs struct {
	b  *Browser
	id cdp.BrowserContextID

	mu     sync.Mutex
	list   []*Page
	seq    map[*Page]uint64 // order of opening, from 1
	opened uint64           // tabs ever added
	active *Page
	// lastActive is the tab that was active when the last one went: once
	// the browser is gone, Active answers with it (see Active).
	lastActive *Page
	changed    chan struct{}
}

// Tab describes one open tab.
type Tab struct {
	Index   int
	URL     string
	Title   string // as the browser reports it (the page's content)
	Active  bool
	Opener  int  // index of the open tab that opened this one; -1 when none
	Crashed bool // its renderer crashed; a navigation recovers it
	Dialog  *Dialog
	Page    *Page
	seq     uint64
}

func newTabs(b *Browser, id cdp.BrowserContextID) *Tabs {
	return &Tabs{b: b, id: id, seq: map[*Page]uint64{}, changed: make(chan struct{})}
}

func (ts *Tabs) notifyLocked() {
	close(ts.changed)
	ts.changed = make(chan struct{})
}

// Changed is closed at the next change of the tabs (one opened, closed,
// selected, renamed, crashed, or a dialog opened or closed in one).
func (ts *Tabs) Changed() <-chan struct{} {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.changed
}

func (ts *Tabs) add(p *Page) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.opened++
	ts.seq[p] = ts.opened
	ts.list = append(ts.list, p)
	ts.active = p
	ts.notifyLocked()
}

func (ts *Tabs) remove(p *Page) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	i := ts.indexLocked(p)
	if i < 0 {
		return
	}
	ts.list = append(ts.list[:i], ts.list[i+1:]...)
	delete(ts.seq, p)
	if ts.active == p {
		ts.active = nil
		ts.lastActive = p
		for _, q := range ts.list {
			if q.t.s.TargetID() == p.opener {
				ts.active = q
			}
		}
		if ts.active == nil && len(ts.list) > 0 {
			ts.active = ts.list[len(ts.list)-1]
		}
	}
	ts.notifyLocked()
}

// touch reports a change inside a tab (title, dialog, crash).
func (ts *Tabs) touch() {
	if ts == nil {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.notifyLocked()
}

// Index is p's tab index, -1 when p is not an open tab. Unlike [Tabs.List]
// it asks the browser nothing.
func (ts *Tabs) Index(p *Page) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.indexLocked(p)
}

func (ts *Tabs) indexLocked(p *Page) int {
	for i, q := range ts.list {
		if q == p {
			return i
		}
	}
	return -1
}

// Active is the active tab, nil when none is open. Once the browser is
// gone it is never nil (if a tab was ever open): the tab that was active
// last, whose calls fail with [ErrBrowserGone]. A browser that goes away
// may detach its tabs before its connection ends; so "no tab" never stands
// for "no browser", whatever order those arrive in.
func (ts *Tabs) Active() *Page {
	gone := ts.b.Gone() != nil
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.active == nil && gone {
		return ts.lastActive
	}
	return ts.active
}

// List describes the open tabs, by index. It asks only the browser process
// (for the titles), never a page, so a busy, crashed or dialog-held tab does
// not slow it down.
func (ts *Tabs) List(ctx context.Context) []Tab {
	ts.b.refreshTitles(ctx)
	return ts.describe()
}

func (ts *Tabs) describe() []Tab {
	ts.mu.Lock()
	list := append([]*Page(nil), ts.list...)
	active := ts.active
	seqs := make([]uint64, len(list))
	for i, p := range list {
		seqs[i] = ts.seq[p]
	}
	ts.mu.Unlock()
	out := make([]Tab, len(list))
	for i, p := range list {
		out[i] = Tab{Index: i, URL: p.URL(), Active: p == active, Opener: -1, Page: p, seq: seqs[i]}
		for j, q := range list {
			if p.opener != "" && q.t.s.TargetID() == p.opener {
				out[i].Opener = j
			}
		}
		p.mu.Lock()
		out[i].Title, out[i].Crashed = p.title, p.crashed
		if p.dialog != nil {
			d := p.dialog.Dialog
			out[i].Dialog = &d
		}
		p.mu.Unlock()
	}
	return out
}

// Mark is a point in the sequence of opened tabs, for [Tabs.OpenedSince].
func (ts *Tabs) Mark() uint64 {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.opened
}

// OpenedSince lists the open tabs that opened after mark (an action's
// tabs_opened).
func (ts *Tabs) OpenedSince(mark uint64) []Tab {
	var out []Tab
	for _, t := range ts.describe() {
		if t.seq > mark {
			out = append(out, t)
		}
	}
	return out
}

// ErrNoTab is returned for a tab index that is not open.
var ErrNoTab = errors.New("no such tab")

func (ts *Tabs) at(i int) (*Page, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if i < 0 || i >= len(ts.list) {
		return nil, fmt.Errorf("%w: %d (%d open)", ErrNoTab, i, len(ts.list))
	}
	return ts.list[i], nil
}

// Select makes tab i the active one and brings it to the front.
func (ts *Tabs) Select(ctx context.Context, i int) (*Page, error) {
	p, err := ts.at(i)
	if err != nil {
		return nil, err
	}
	ts.mu.Lock()
	ts.active = p
	ts.notifyLocked()
	ts.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, ts.b.busyTimeout())
	defer cancel()
	if err := ts.b.conn.Root().Call(cctx, target.CommandActivateTarget, target.ActivateTargetParams{TargetID: p.t.s.TargetID()}, nil); err != nil && !isGone(err) {
		return p, fmt.Errorf("selecting tab %d: %w", i, err)
	}
	return p, nil
}

// closeWait bounds how long Close waits for a tab to go.
const closeWait = 5 * time.Second

// Close closes tab i and waits, briefly, until it is gone. A tab whose page
// asks before unloading (beforeunload) stays open with the dialog shown:
// Close then fails with ErrDialogOpen.
func (ts *Tabs) Close(ctx context.Context, i int) error {
	p, err := ts.at(i)
	if err != nil {
		return err
	}
	if err := ts.b.conn.Root().Call(ctx, target.CommandCloseTarget, target.CloseTargetParams{TargetID: p.t.s.TargetID()}, nil); err != nil && !isGone(err) {
		return fmt.Errorf("closing tab %d: %w", i, err)
	}
	cctx, cancel := context.WithTimeout(ctx, closeWait)
	defer cancel()
	for {
		interrupt := p.t.interrupt()
		if _, open := p.Dialog(); open {
			return fmt.Errorf("closing tab %d: %w", i, ErrDialogOpen)
		}
		select {
		case <-p.Done():
			return nil
		case <-interrupt:
		case <-cctx.Done():
			return fmt.Errorf("closing tab %d: it did not close in %s", i, closeWait)
		}
	}
}

// New opens a tab in this group, makes it active and, when url is not "",
// navigates it there (as [Page.Navigate]).
func (ts *Tabs) New(ctx context.Context, url string) (*Page, NavResult, error) {
	ch := ts.b.subscribePages()
	defer ts.b.unsubscribePages(ch)
	res, err := cdp.Call(ctx, ts.b.conn.Root(), target.CreateTarget, target.CreateTargetParams{
		URL: "about:blank", BrowserContextID: ts.id,
	})
	if err != nil {
		return nil, NavResult{}, fmt.Errorf("opening a tab: %w", err)
	}
	var p *Page
	for p == nil {
		if p = ts.b.pageByTarget(res.TargetID); p != nil {
			break
		}
		select {
		case <-ctx.Done():
			return nil, NavResult{}, fmt.Errorf("opening a tab: %w", ctx.Err())
		case <-ch:
		}
	}
	if err := p.waitReady(ctx); err != nil {
		return nil, NavResult{}, fmt.Errorf("opening a tab: %w", err)
	}
	ts.mu.Lock()
	if ts.indexLocked(p) >= 0 {
		ts.active = p
		ts.notifyLocked()
	}
	ts.mu.Unlock()
	if url == "" {
		return p, NavResult{URL: p.URL()}, nil
	}
	r, err := p.Navigate(ctx, url)
	return p, r, err
}

// refreshTitles asks the browser for the titles of its tabs.
func (b *Browser) refreshTitles(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, cleanupTimeout)
	defer cancel()
	res, err := cdp.Call(ctx, b.conn.Root(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return
	}
	for _, info := range res.TargetInfos {
		if p := b.pageByTarget(info.TargetID); p != nil {
			p.mu.Lock()
			p.title = info.Title
			p.mu.Unlock()
		}
	}
}
