package browser

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"sort"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
)

// The browser's own small scripts, run in [UtilityWorld].
var (
	//go:embed js/settle.js
	settleJS string
	//go:embed js/title.js
	titleJS string
	//go:embed js/locate.js
	locateJS string
)

// ErrFrameGone means the frame navigated away or was removed.
var ErrFrameGone = errors.New("frame is gone")

// Page is a top-level tab (or popup) with its frames, including those that
// run in other processes. Safe for concurrent use.
type Page struct {
	b              *Browser
	t              *tgt
	browserContext cdp.BrowserContextID
	opener         target.ID
}

// TargetID identifies the tab.
func (p *Page) TargetID() target.ID { return p.t.s.targetID }

// Session is the page's own CDP session (for input and screencast).
func (p *Page) Session() *Session { return p.t.s }

// Done is closed when the page closes.
func (p *Page) Done() <-chan struct{} { return p.t.s.Done() }

// Frame is one frame of a page, with where its scripts run.
type Frame struct {
	ID       cdp.FrameID
	ParentID cdp.FrameID
	URL      string
	Remote   bool // runs in its own process (an out-of-process iframe)
	t        *tgt
}

// MainFrame returns the page's top frame.
func (p *Page) MainFrame() Frame {
	t := p.t
	t.mu.Lock()
	defer t.mu.Unlock()
	f := Frame{ID: t.mainID, t: t}
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

// Frames lists every frame of the page, parents before children, each once,
// owned by the target that renders it.
func (p *Page) Frames() []Frame {
	seen := map[cdp.FrameID]Frame{}
	for _, t := range p.b.targetsOfPage(p) {
		t.mu.Lock()
		for id, fi := range t.frames {
			owned := t.contexts[id] != nil || id == t.mainID
			prev, had := seen[id]
			if had && (prev.t.contexts[id] != nil || (prev.Remote && prev.ID == cdp.FrameID(prev.t.s.targetID))) && !owned {
				continue
			}
			if !owned && had {
				continue
			}
			seen[id] = Frame{ID: id, ParentID: fi.parent, URL: fi.url, t: t, Remote: t != p.t}
		}
		t.mu.Unlock()
	}
	// An out-of-process frame's own target knows no parent; take it from the parent target.
	for _, t := range p.b.targetsOfPage(p) {
		if t == p.t {
			continue
		}
		id := cdp.FrameID(t.s.targetID)
		if f, ok := seen[id]; ok && f.ParentID == "" {
			if pt := p.b.targetBySession(t.parent); pt != nil {
				pt.mu.Lock()
				if fi := pt.frames[id]; fi != nil {
					f.ParentID = fi.parent
				}
				pt.mu.Unlock()
				seen[id] = f
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
			cur = seen[cur.ParentID]
		}
		return d
	}
	sort.SliceStable(out, func(i, j int) bool {
		di, dj := depth(out[i]), depth(out[j])
		if di != dj {
			return di < dj
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func (b *Browser) targetBySession(s *Session) *tgt {
	if s == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.targets[s.id]
}

// Call runs the function declaration fn in world of the frame ("" is the
// page's own world) with args as JSON values, and decodes its JSON result
// (promises are awaited) into res. A thrown exception is an error.
func (f Frame) Call(ctx context.Context, world, fn string, res any, args ...any) error {
	if f.t == nil {
		return fmt.Errorf("%w: no frame", ErrFrameGone)
	}
	id, err := f.t.context(ctx, f.ID, world)
	if err != nil {
		return err
	}
	callArgs := make([]*runtime.CallArgument, len(args))
	for i, a := range args {
		raw, err := jsonv2.Marshal(a)
		if err != nil {
			return fmt.Errorf("encoding argument %d: %w", i, err)
		}
		callArgs[i] = &runtime.CallArgument{Value: raw}
	}
	out, err := cdp.Call(ctx, f.t.s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn,
		ExecutionContextID:  id,
		Arguments:           callArgs,
		ReturnByValue:       ptr(true),
		AwaitPromise:        ptr(true),
	})
	if err != nil {
		if isGone(err) {
			return fmt.Errorf("%w: %v", ErrFrameGone, err)
		}
		return err
	}
	if out.ExceptionDetails != nil {
		return fmt.Errorf("script error: %s", exceptionText(out.ExceptionDetails))
	}
	if res != nil && out.Result != nil && len(out.Result.Value) > 0 {
		if err := jsonv2.Unmarshal(out.Result.Value, res); err != nil {
			return fmt.Errorf("decoding script result: %w", err)
		}
	}
	return nil
}

// Session is the CDP session that renders the frame.
func (f Frame) Session() *Session {
	if f.t == nil {
		return nil
	}
	return f.t.s
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		return firstLine(d.Exception.Description)
	}
	return firstLine(d.Text)
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}

// Offset is where the frame's viewport sits in the top frame's viewport, in
// CSS pixels, so that a point inside the frame can be clicked from the top.
func (f Frame) Offset(ctx context.Context, p *Page) (x, y float64, err error) {
	frames := p.Frames()
	byID := map[cdp.FrameID]Frame{}
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
		owner, err := cdp.Call(ctx, parent.t.s, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: cur.ID})
		if err != nil {
			return 0, 0, fmt.Errorf("locating frame: %w", err)
		}
		box, err := cdp.Call(ctx, parent.t.s, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: owner.BackendNodeID})
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

// NavResult is where a navigation ended.
type NavResult struct {
	URL    string
	Status int // HTTP status of the final document; 0 when unknown (about:, same-document)
}

// Navigate loads url in the top frame and waits for its load event.
func (p *Page) Navigate(ctx context.Context, url string) (NavResult, error) {
	t := p.t
	loaded, stop := t.s.Subscribe(page.LifecycleEvent.Method)
	defer stop()
	res, err := cdp.Call(ctx, t.s, page.Navigate, page.NavigateParams{URL: url})
	if err != nil {
		return NavResult{}, fmt.Errorf("navigating to %s: %w", url, err)
	}
	if res.ErrorText != "" {
		return NavResult{}, fmt.Errorf("navigating to %s: %s", url, res.ErrorText)
	}
	if res.LoaderID == "" { // same-document
		return NavResult{URL: p.URL()}, nil
	}
	if err := waitLoad(ctx, loaded, res.FrameID, res.LoaderID); err != nil {
		return NavResult{}, fmt.Errorf("navigating to %s: %w", url, err)
	}
	return p.result(res.LoaderID), nil
}

func (p *Page) result(loader cdp.LoaderID) NavResult {
	t := p.t
	t.mu.Lock()
	defer t.mu.Unlock()
	r := NavResult{Status: int(t.docs[loader])}
	if fi := t.frames[t.mainID]; fi != nil {
		r.URL = fi.url
		if loader == "" {
			r.Status = int(t.docs[fi.loader])
		}
	}
	return r
}

// Back goes one step back in the page's history and waits until the
// entry it goes to has loaded (see history.go).
func (p *Page) Back(ctx context.Context) (NavResult, error) { return p.historyStep(ctx, -1) }

// WaitLoaded waits until the top frame has loaded a document whose URL
// satisfies ok, and returns where it is.
func (p *Page) WaitLoaded(ctx context.Context, ok func(url string) bool) (NavResult, error) {
	t := p.t
	for {
		r, ch, loadedDoc := p.state()
		if loadedDoc && ok(r.URL) {
			return r, nil
		}
		select {
		case <-ctx.Done():
			return r, fmt.Errorf("waiting for the page to load: %w", ctx.Err())
		case <-t.s.Done():
			return r, fmt.Errorf("%w: page closed", ErrFrameGone)
		case <-ch:
		}
	}
}

// Settle waits until no navigation of the top frame is pending and its
// document has loaded: after a click on a link or a submit button, the next
// look at the page sees where it led, not the page it left.
func (p *Page) Settle(ctx context.Context) error {
	t := p.t
	// A click queues its navigation as a task of the page; once a task
	// queued after it has run, the page has told us of the navigation
	// (events and replies of a session keep their order). A page that is
	// already navigating away answers with an error, which is fine here.
	_ = p.MainFrame().Call(ctx, UtilityWorld, settleJS, nil)
	for {
		t.mu.Lock()
		pending := t.navigating
		ch := t.changed
		t.mu.Unlock()
		_, _, loaded := p.state()
		if !pending && loaded {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the page to settle: %w", ctx.Err())
		case <-t.s.Done():
			return fmt.Errorf("%w: page closed", ErrFrameGone)
		case <-ch:
		}
	}
}

// state reads the top frame and whether its document finished loading.
func (p *Page) state() (NavResult, <-chan struct{}, bool) {
	t := p.t
	t.mu.Lock()
	defer t.mu.Unlock()
	var r NavResult
	loaded := false
	if fi := t.frames[t.mainID]; fi != nil {
		r.URL = fi.url
		r.Status = int(t.docs[fi.loader])
		loaded = t.loadedLocked(fi.loader)
	}
	return r, t.changed, loaded
}

func waitLoad(ctx context.Context, events <-chan jsonv2.Value, frame cdp.FrameID, loader cdp.LoaderID) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case raw, ok := <-events:
			if !ok {
				return ErrFrameGone
			}
			ev, ok := decode[page.EventLifecycleEvent](raw)
			if ok && ev.FrameID == frame && ev.LoaderID == loader && ev.Name == "load" {
				return nil
			}
		}
	}
}

// Title is the top document's title.
func (p *Page) Title(ctx context.Context) string {
	var title string
	_ = p.MainFrame().Call(ctx, UtilityWorld, titleJS, &title)
	return title
}

// Rect is a box in the top frame's viewport, CSS pixels.
type Rect struct {
	X, Y, Width, Height float64
}

// Locate finds the first element matching a CSS selector in the top frame
// and returns its box, for scripted users of the live view.
func (p *Page) Locate(ctx context.Context, selector string) (Rect, error) {
	var r *Rect
	err := p.MainFrame().Call(ctx, UtilityWorld, locateJS, &r, selector)
	if err != nil {
		return Rect{}, fmt.Errorf("locating %q: %w", selector, err)
	}
	if r == nil {
		return Rect{}, fmt.Errorf("locating %q: no such element", selector)
	}
	return *r, nil
}

// ErrNoObject means the object or property asked for is not in that frame.
var ErrNoObject = errors.New("no such object")

func wrapGone(err error) error {
	if isGone(err) {
		return fmt.Errorf("%w: %v", ErrFrameGone, err)
	}
	return err
}

// Goto starts loading url in the top frame and returns without waiting; use
// WaitLoaded to wait for where the navigation (and any that follow it) ends.
func (p *Page) Goto(ctx context.Context, url string) error {
	res, err := cdp.Call(ctx, p.t.s, page.Navigate, page.NavigateParams{URL: url})
	if err != nil {
		return fmt.Errorf("navigating to %s: %w", url, err)
	}
	if res.ErrorText != "" {
		return fmt.Errorf("navigating to %s: %s", url, res.ErrorText)
	}
	return nil
}
