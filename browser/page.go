package browser

import (
	"context"
	"errors"
	"fmt"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/page"
	"sort"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/target"

	cdpconn "github.com/poppy-browser/poppy-browser/browser/internal/cdp"
)

// Page is a top-level tab (or popup) with its frames, including those that
// run in other processes. Safe for concurrent use.
type Page struct {
	b              *Browser
	t              *tgt
	browserContext cdp.BrowserContextID
	opener         target.ID
	tabs           *Tabs

	mu          sync.Mutex
	alert       chan struct{} // closed and replaced when a dialog opens or the renderer crashes
	crashed     bool
	title       string // as the browser last reported it
	dialog      *openDialog
	dialogs     []Dialog    // the last few, newest last
	recent      []time.Time // when recent dialogs opened, for the loop bound
	autoDismiss bool        // a dialog loop: dismiss every dialog until the next document
	downloads   []Download
	choosers    []FileChooser
	request     *FileRequest // the open file chooser, see files.go
	chosen      []ChosenFile // the files the User chose in this document
	auths       []AuthChallenge

	in inputBlock // whether the page ignores window input, see windowinput.go

	ownScreen *screenSize // the screen before the first device emulation, see emulation.go
	// frameScale is the scale of the screen the page's window is on (0:
	// 1), below which its screencast's pictures are stale: see sharp.go.
	frameScale float64
}

func newPage(b *Browser, t *tgt, info *target.Info) *Page {
	return &Page{b: b, t: t, browserContext: info.BrowserContextID, opener: info.OpenerID,
		title: info.Title, alert: make(chan struct{}), in: inputBlock{settled: make(chan struct{})}}
}

// notifyLocked wakes the commands waiting in the page's targets (see
// tgt.await) so they look at its state again.
func (p *Page) notifyLocked() {
	close(p.alert)
	p.alert = make(chan struct{})
}

// Done is closed when the page closes.
func (p *Page) Done() <-chan struct{} { return p.t.s.Done() }

// BrowserGone reports why the page's browser can no longer be used
// (wrapping [ErrBrowserGone]), or nil while it can.
func (p *Page) BrowserGone() error { return p.b.Gone() }

// Tabs is the group of tabs this page belongs to (its browser context).
func (p *Page) Tabs() *Tabs { return p.tabs }

// Crashed reports whether the tab's renderer crashed and no navigation has
// recovered it since.
func (p *Page) Crashed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.crashed
}

// FrameID identifies a frame within the browser.
type FrameID string

// Frame is one frame of a page, with where its scripts run.
type Frame struct {
	ID       FrameID
	ParentID FrameID
	URL      string
	Remote   bool // runs in its own process (an out-of-process iframe)
	t        *tgt
}

// MainFrame returns the page's top frame.
func (p *Page) MainFrame() Frame {
	t := p.t
	t.mu.Lock()
	defer t.mu.Unlock()
	f := Frame{ID: FrameID(t.mainID), t: t}
	if fi := t.frames[t.mainID]; fi != nil {
		f.URL = fi.url
	}
	return f
}

// URL is the top frame's current URL.
func (p *Page) URL() string { return p.MainFrame().URL }

// Document identifies the top frame's current document, as the browser last
// reported it (its loader id; a same-document navigation keeps it). It
// makes no CDP call.
func (p *Page) Document() string {
	t := p.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if fi := t.frames[t.mainID]; fi != nil {
		return string(fi.loader)
	}
	return ""
}

// Frames lists every frame of the page, parents before children and
// siblings in the order the page attached them (document order), each once,
// owned by the target that renders it. Frames whose target went away, whose
// renderer crashed or whose parent is no longer listed are left out.
func (p *Page) Frames() []Frame {
	seen := map[cdp.FrameID]Frame{}
	heard := map[cdp.FrameID]uint64{} // the first any target heard of each frame
	targets := p.b.targetsOfPage(p)
	for _, t := range targets {
		t.mu.Lock()
		if t.crashed && t != p.t {
			t.mu.Unlock()
			continue
		}
		for id, fi := range t.frames {
			if h, ok := heard[id]; !ok || fi.seq < h {
				heard[id] = fi.seq
			}
			owned := t.contexts[id] != nil || id == t.mainID
			// The target that renders a frame wins over its parent, which
			// also lists it.
			if prev, had := seen[id]; had && (!owned || cdp.FrameID(prev.t.s.TargetID()) == id) {
				continue
			}
			seen[id] = Frame{ID: FrameID(id), ParentID: FrameID(fi.parent), URL: fi.url, t: t, Remote: t != p.t}
		}
		t.mu.Unlock()
	}
	// An out-of-process frame's own target knows no parent; take it from the parent target.
	for _, t := range targets {
		if t == p.t {
			continue
		}
		id := cdp.FrameID(t.s.TargetID())
		if f, ok := seen[id]; ok && f.ParentID == "" {
			if pt := p.b.targetBySession(t.parent); pt != nil {
				pt.mu.Lock()
				if fi := pt.frames[id]; fi != nil {
					f.ParentID = FrameID(fi.parent)
				}
				pt.mu.Unlock()
				seen[id] = f
			}
		}
	}
	main := cdp.FrameID(p.MainFrame().ID)
	// Drop orphans: a frame whose parent is not listed belongs to a document
	// (or a target) that went away.
	for changed := true; changed; {
		changed = false
		for id, f := range seen {
			if id == main {
				continue
			}
			if _, ok := seen[cdp.FrameID(f.ParentID)]; f.ParentID == "" || !ok {
				delete(seen, id)
				changed = true
			}
		}
	}
	out := make([]Frame, 0, len(seen))
	for _, f := range seen {
		out = append(out, f)
	}
	depth := func(f Frame) int {
		d := 0
		for cur := f; cur.ParentID != "" && d < 32; d++ {
			cur = seen[cdp.FrameID(cur.ParentID)]
		}
		return d
	}
	sort.SliceStable(out, func(i, j int) bool {
		di, dj := depth(out[i]), depth(out[j])
		if di != dj {
			return di < dj
		}
		// Siblings in document order, so a page reads the same each time.
		if hi, hj := heard[cdp.FrameID(out[i].ID)], heard[cdp.FrameID(out[j].ID)]; hi != hj {
			return hi < hj
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func (b *Browser) targetBySession(s *cdpconn.Session) *tgt {
	if s == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.targets[s.ID()]
}

// Offset is where the frame's viewport sits in the top frame's viewport, in
// CSS pixels, so that a point inside the frame can be clicked from the top.
func (f Frame) Offset(ctx context.Context, p *Page) (x, y float64, err error) {
	frames := p.Frames()
	byID := map[FrameID]Frame{}
	for _, fr := range frames {
		byID[fr.ID] = fr
	}
	cur, ok := byID[f.ID]
	if !ok {
		return 0, 0, fmt.Errorf("%w: %s", ErrFrameGone, f.ID)
	}
	for cur.ParentID != "" {
		parent, ok := byID[cur.ParentID]
		if !ok {
			return 0, 0, fmt.Errorf("%w: parent of %s", ErrFrameGone, cur.ID)
		}
		s := parent.t.main()
		owner, err := cdp.Call(ctx, s, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: cdp.FrameID(cur.ID)})
		if err != nil {
			return 0, 0, fmt.Errorf("locating frame: %w", err)
		}
		box, err := cdp.Call(ctx, s, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: owner.BackendNodeID})
		if err != nil {
			return 0, 0, fmt.Errorf("locating frame: %w", err)
		}
		if box.Model == nil || len(box.Model.Content) < 2 {
			return 0, 0, errors.New("locating frame: no box")
		}
		x += box.Model.Content[0]
		y += box.Model.Content[1]
		cur = parent
	}
	return x, y, nil
}

// waitReady waits until the page is configured and running.
func (p *Page) waitReady(ctx context.Context) error {
	select {
	case <-p.t.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// watch follows the events of one of the page's targets that change the
// tab's state: dialogs, crashes, new documents, file choosers. The handlers
// run on the read loop and must not block.
func (p *Page) watch(t *tgt) {
	s := t.s
	s.On(page.JavascriptDialogOpening.Method, func(raw jsonv2.Value) {
		if ev, ok := cdpconn.Decode[page.EventJavascriptDialogOpening](raw); ok {
			p.dialogOpened(s, ev)
		}
	})
	s.On(page.JavascriptDialogClosed.Method, func(jsonv2.Value) {
		p.mu.Lock()
		if p.dialog != nil && p.dialog.s == s {
			p.dialog = nil
			p.notifyLocked()
		}
		p.mu.Unlock()
		p.tabs.touch()
	})
	s.On(page.FileChooserOpened.Method, func(raw jsonv2.Value) {
		if ev, ok := cdpconn.Decode[page.EventFileChooserOpened](raw); ok {
			p.chooserOpened(t, ev)
		}
	})
	if t != p.t {
		return
	}
	s.On(inspector.TargetCrashed.Method, func(jsonv2.Value) { p.setCrashed() })
	s.On(page.FrameNavigated.Method, func(raw jsonv2.Value) {
		ev, ok := cdpconn.Decode[page.EventFrameNavigated](raw)
		if !ok || ev.Frame == nil || ev.Frame.ParentID != "" {
			return
		}
		p.mu.Lock()
		p.crashed, p.autoDismiss, p.recent = false, false, nil
		p.newDocumentFilesLocked()
		p.notifyLocked()
		p.mu.Unlock()
		p.tabs.touch()
	})
}

func (p *Page) setCrashed() {
	p.mu.Lock()
	p.crashed = true
	p.dialog = nil
	p.notifyLocked()
	p.mu.Unlock()
	p.tabs.touch()
}

// Close closes the tab and disposes of the browser context that
// [Browser.NewPage] made for it (its cookies and storage).
func (p *Page) Close(ctx context.Context) error {
	if err := p.b.conn.Root().Call(ctx, target.CommandCloseTarget, target.CloseTargetParams{TargetID: p.t.s.TargetID()}, nil); err != nil && !isGone(err) {
		return fmt.Errorf("closing the page: %w", err)
	}
	if p.browserContext != "" {
		if err := p.b.conn.Root().Call(ctx, target.CommandDisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: p.browserContext}, nil); err != nil && !isGone(err) {
			return fmt.Errorf("closing the page: %w", err)
		}
	}
	return nil
}
