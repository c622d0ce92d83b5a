package browser

import (
	"context"
	"errors"
	"fmt"
	"math"

	cdpb "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/target"
)

// MaxFrameScale bounds the pixel ratio of a page's pictures (its
// screencast) while it is shown on a device: a phone at 3x gets frames at
// 2x, 4/9 of the pixels of 3x.
const MaxFrameScale = 2

// The pictures of a page follow its window's device scale, not an emulated
// one: Chromium draws the compositor surface at the window's scale, and an
// emulated scale changes what the page's scripts see, not that surface.
// So while a page is shown on a device of scale k > 1, its window moves to
// a virtual screen of scale min(k, MaxFrameScale) (Emulation.addScreen,
// headless only), and back to its place on the primary screen when the
// device ends. The agent's view never sees that screen: nothing moves
// before a device is emulated, the window is back before the device's end
// returns, and the screen is removed once no window is on it. A browser
// without virtual screens (headful, or one we attach to that refuses)
// keeps its pictures at 1x.

// sharpScreens are the virtual screens and the windows moved to them.
// Guarded by emulated.mu.
type sharpScreens struct {
	screens map[float64]sharpScreen // by scale
	windows map[cdpb.WindowID]*movedWindow
	pages   map[*Page]cdpb.WindowID // the pages shown on a device, by window
	next    int64                   // the left edge (DIPs) of the last screen added
	primary *screenSize             // the primary screen as a page saw it (Width, Height, Ratio)
	// returned are the tabs whose window came back in this EmulateDevice:
	// see refreshHidden.
	returned []*Page
	refused  bool // the browser has no virtual screens: do not ask again
}

type sharpScreen struct {
	id   emulation.ScreenID
	left int64 // DIPs
}

// movedWindow is a window on a virtual screen: its place on the primary
// screen and the scale of the screen it is on.
type movedWindow struct {
	place cdpb.Bounds // Left and Top only
	scale float64
}

// screenSide is the size (DIPs) of a virtual screen: room for any window.
const screenSide = 8192

// frameScale is the scale of the screen a device of scale k is drawn on;
// 1 is the primary screen.
func frameScale(k float64) float64 {
	if !(k > 1) {
		return 1
	}
	return min(k, MaxFrameScale)
}

// sharpen puts p's window on the screen of scale k (1: its place on the
// primary screen). It fails quietly: the pictures then stay at 1x.
func (e *emulated) sharpen(ctx context.Context, p *Page, k float64) {
	s := &e.sharp
	if s.windows == nil {
		s.windows = map[cdpb.WindowID]*movedWindow{}
		s.pages = map[*Page]cdpb.WindowID{}
		s.screens = map[float64]sharpScreen{}
	}
	err := e.sharpenErr(ctx, p, k)
	e.dropUnused(ctx, p)
	if err != nil && !isGone(err) {
		p.b.log.Debug("the page's pictures stay at its window's scale", "scale", k, "err", err)
	}
}

func (e *emulated) sharpenErr(ctx context.Context, p *Page, k float64) error {
	s := &e.sharp
	root := p.b.conn.Root()
	w, err := cdp.Call(ctx, root, cdpb.GetWindowForTarget, cdpb.GetWindowForTargetParams{TargetID: p.t.s.TargetID()})
	if err != nil {
		return fmt.Errorf("finding the window: %w", err)
	}
	if w.Bounds == nil || w.Bounds.Left == nil || w.Bounds.Top == nil || (w.Bounds.WindowState != "" && w.Bounds.WindowState != cdpb.WindowStateNormal) {
		return errors.New("the window is not a normal one")
	}
	id := w.WindowID
	if k == 1 {
		// The first of the window's tabs to leave the device takes the
		// window back (the others leave it in the same EmulateDevice):
		// a tab left behind on a screen that goes keeps seeing it.
		delete(s.pages, p)
		p.setFrameScale(1)
		mw := s.windows[id]
		if mw == nil {
			return nil
		}
		delete(s.windows, id)
		s.returned = append(s.returned, p)
		for q, qid := range s.pages {
			if qid == id {
				q.setFrameScale(1)
				s.returned = append(s.returned, q)
			}
		}
		return e.moveBack(ctx, p, id, mw.place)
	}
	s.pages[p] = id
	mw := s.windows[id]
	if mw != nil && mw.scale == k {
		p.setFrameScale(k)
		return nil // another tab of the window moved it
	}
	if mw == nil {
		mw = &movedWindow{place: cdpb.Bounds{Left: w.Bounds.Left, Top: w.Bounds.Top}}
		// A window a page opened on a virtual screen: its place is the
		// same place on the primary screen.
		for _, sc := range s.screens {
			if l := *w.Bounds.Left; l >= sc.left && l < sc.left+screenSide {
				mw.place.Left = ptr(l - sc.left)
			}
		}
		s.windows[id] = mw
	} else {
		// From one virtual screen to another by way of the primary
		// screen, where the window's place is exact.
		p.setFrameScale(1)
		if err := e.moveBack(ctx, p, id, mw.place); err != nil {
			return err
		}
	}
	if s.refused {
		return nil
	}
	sc, ok := s.screens[k]
	if !ok {
		left := s.next + screenSide
		px := int64(math.Round(screenSide * k))
		res, err := cdp.Call(ctx, guarded{p.t, browserSide}, emulation.AddScreen, emulation.AddScreenParams{
			Left: left, Top: 0, Width: px, Height: px, DevicePixelRatio: k, Label: "poppy-browser: the User's device",
		})
		if err != nil || res.ScreenInfo == nil {
			s.refused = true
			return fmt.Errorf("adding a screen: %w", err)
		}
		s.next = left
		sc = sharpScreen{id: res.ScreenInfo.ID, left: res.ScreenInfo.Left}
		s.screens[k] = sc
	}
	to := cdpb.Bounds{Left: ptr(*mw.place.Left + sc.left), Top: mw.place.Top}
	if _, err := cdp.Call(ctx, root, cdpb.SetWindowBounds, cdpb.SetWindowBoundsParams{WindowID: id, Bounds: &to}); err != nil {
		return fmt.Errorf("moving the window: %w", err)
	}
	mw.scale = k
	p.setFrameScale(k)
	// Once the frames have seen this screen, the next screen they see is
	// the next move's: the way back is then awaited on a known order.
	p.awaitFrames(ctx, func(f screenSize) bool { return f.Ratio == k })
	return nil
}

// moveBack puts window id at place on the primary screen. Chromium places
// a window leaving a screen of scale k at k times the asked place (20 lands
// at 40 from a 2x screen): once on the primary screen, a second move puts
// it where it was.
func (e *emulated) moveBack(ctx context.Context, p *Page, id cdpb.WindowID, place cdpb.Bounds) error {
	root := p.b.conn.Root()
	for range 2 {
		if _, err := cdp.Call(ctx, root, cdpb.SetWindowBounds, cdpb.SetWindowBoundsParams{WindowID: id, Bounds: &place}); err != nil {
			return fmt.Errorf("moving the window back: %w", err)
		}
		w, err := cdp.Call(ctx, root, cdpb.GetWindowForTarget, cdpb.GetWindowForTargetParams{TargetID: p.t.s.TargetID()})
		if err != nil {
			return fmt.Errorf("moving the window back: %w", err)
		}
		if w.Bounds != nil && w.Bounds.Left != nil && w.Bounds.Top != nil && *w.Bounds.Left == *place.Left && *w.Bounds.Top == *place.Top {
			return nil
		}
	}
	return errors.New("moving the window back: it is not where it was")
}

func closed(p *Page) bool {
	select {
	case <-p.Done():
		return true
	default:
		return false
	}
}

// dropUnused forgets closed pages and the windows no open page is in, and
// removes the screens no window is on.
func (e *emulated) dropUnused(ctx context.Context, p *Page) {
	s := &e.sharp
	inUse := map[cdpb.WindowID]bool{}
	for q, id := range s.pages {
		if closed(q) {
			delete(s.pages, q)
			continue
		}
		inUse[id] = true
	}
	used := map[float64]bool{}
	for id, mw := range s.windows {
		if !inUse[id] {
			delete(s.windows, id) // its tabs closed: the window is gone
			continue
		}
		used[mw.scale] = true
	}
	for k, sc := range s.screens {
		if used[k] {
			continue
		}
		delete(s.screens, k)
		if _, err := cdp.Call(ctx, guarded{p.t, browserSide}, emulation.RemoveScreen, emulation.RemoveScreenParams{ScreenID: sc.id}); err != nil && !isGone(err) {
			p.b.log.Debug("removing a screen", "err", err)
		}
	}
}

// onVirtual reports whether p's window is on a virtual screen: a tab
// opened by a page shown on the device.
func (e *emulated) onVirtual(ctx context.Context, p *Page) bool {
	if len(e.sharp.windows) == 0 {
		return false
	}
	w, err := cdp.Call(ctx, p.b.conn.Root(), cdpb.GetWindowForTarget, cdpb.GetWindowForTargetParams{TargetID: p.t.s.TargetID()})
	return err == nil && e.sharp.windows[w.WindowID] != nil
}

// refreshHidden shows, one at a time, the tabs whose window came back from
// a virtual screen while they were not the front tab of their window (a
// tab the page opened during the turn is in front of its opener): a hidden
// tab's renderer takes the new screen only once shown (its innerWidth
// stayed the virtual screen's). Each is brought to the front until it sees
// its own screen, then the front tab is brought back. The pages see a
// visibility change, as at a tab switch.
func (e *emulated) refreshHidden(ctx context.Context) {
	s := &e.sharp
	returned := s.returned
	s.returned = nil
	fronts := map[*Tabs]*Page{}
	for _, q := range returned {
		if closed(q) || q.tabs == nil {
			continue
		}
		front := q.tabs.Active()
		if front == nil || front == q {
			continue
		}
		fronts[q.tabs] = front
		if err := q.b.conn.Root().Call(ctx, target.CommandActivateTarget, target.ActivateTargetParams{TargetID: q.t.s.TargetID()}, nil); err != nil {
			continue
		}
		q.mu.Lock()
		own := q.ownScreen
		q.mu.Unlock()
		if own != nil {
			q.awaitScreen(ctx, *own)
		}
	}
	for _, front := range fronts {
		if !closed(front) {
			_ = front.b.conn.Root().Call(ctx, target.CommandActivateTarget, target.ActivateTargetParams{TargetID: front.t.s.TargetID()}, nil)
		}
	}
}

// setFrameScale records the scale of the screen p's window is on: its
// screencast drops the pictures drawn below it (see Page.Screencast).
func (p *Page) setFrameScale(k float64) {
	p.mu.Lock()
	p.frameScale = k
	p.mu.Unlock()
}

// windowScale is the scale of the screen p's window is on, 1 unless it
// was moved to a virtual screen.
func (p *Page) windowScale() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return max(p.frameScale, 1)
}
