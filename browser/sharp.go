package browser

import (
	"context"
	"errors"
	"fmt"
	"math"

	cdpb "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
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
// headless only), and back to the primary screen, at its old place, when
// the device ends. The agent's view never sees that screen: nothing moves
// before a device is emulated, the window is back before the device's end
// returns, and the screen is removed once no window is on it. A browser
// without virtual screens (headful, or one we attach to that refuses)
// keeps its pictures at 1x.

// sharpScreens are the virtual screens windows are on. Guarded by
// emulated.mu.
type sharpScreens struct {
	screens map[float64]sharpScreen // by scale
	moved   map[*Page]windowPlace
	next    int64 // the left edge (DIPs) of the next screen
	refused bool  // the browser has no virtual screens: do not ask again
}

type sharpScreen struct {
	id   emulation.ScreenID
	left int64 // DIPs
}

// windowPlace is where a window was on the primary screen, and the scale
// of the screen it is on now.
type windowPlace struct {
	id     cdpb.WindowID
	bounds cdpb.Bounds
	scale  float64
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

// sharpen moves p's window to the screen of scale k (1: back to the
// primary screen). It fails quietly: the pictures then stay at 1x.
func (e *emulated) sharpen(ctx context.Context, p *Page, k float64) {
	err := e.sharpenErr(ctx, p, k)
	e.dropUnused(ctx, p)
	if err != nil && !isGone(err) {
		p.b.log.Debug("the page's pictures stay at its window's scale", "scale", k, "err", err)
	}
}

func (e *emulated) sharpenErr(ctx context.Context, p *Page, k float64) error {
	s := &e.sharp
	if s.moved == nil {
		s.moved = map[*Page]windowPlace{}
		s.screens = map[float64]sharpScreen{}
	}
	root := p.b.conn.Root()
	place, on := s.moved[p]
	switch {
	case on && place.scale == k:
		return nil
	case k == 1 && !on:
		return nil
	case k == 1:
		delete(s.moved, p)
		// Chromium places a window leaving a screen of scale k at k times
		// the asked place (20 lands at 40 from a 2x screen): once on the
		// primary screen, a second move puts it where it was.
		for range 2 {
			if _, err := cdp.Call(ctx, root, cdpb.SetWindowBounds, cdpb.SetWindowBoundsParams{WindowID: place.id, Bounds: &place.bounds}); err != nil {
				return fmt.Errorf("moving the window back: %w", err)
			}
			w, err := cdp.Call(ctx, root, cdpb.GetWindowForTarget, cdpb.GetWindowForTargetParams{TargetID: p.t.s.TargetID()})
			if err != nil {
				return fmt.Errorf("moving the window back: %w", err)
			}
			if w.Bounds != nil && w.Bounds.Left != nil && w.Bounds.Top != nil && *w.Bounds.Left == *place.bounds.Left && *w.Bounds.Top == *place.bounds.Top {
				return nil
			}
		}
		return errors.New("moving the window back: it is not where it was")
	case on:
		// From one virtual screen to another: by way of the primary
		// screen, where the window's place is exact.
		if err := e.sharpenErr(ctx, p, 1); err != nil {
			return err
		}
		on = false
	}
	if s.refused {
		return nil
	}
	if !on {
		w, err := cdp.Call(ctx, root, cdpb.GetWindowForTarget, cdpb.GetWindowForTargetParams{TargetID: p.t.s.TargetID()})
		if err != nil {
			return fmt.Errorf("finding the window: %w", err)
		}
		if w.Bounds == nil || w.Bounds.Left == nil || w.Bounds.Top == nil || (w.Bounds.WindowState != "" && w.Bounds.WindowState != cdpb.WindowStateNormal) {
			return errors.New("the window is not a normal one")
		}
		// Only the place: Chromium keeps a moved window's size in device
		// pixels, and sizes set on one screen land wrong on the other.
		place = windowPlace{id: w.WindowID, bounds: cdpb.Bounds{Left: w.Bounds.Left, Top: w.Bounds.Top}}
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
	b := place.bounds
	b.Left = ptr(*b.Left + sc.left)
	if _, err := cdp.Call(ctx, root, cdpb.SetWindowBounds, cdpb.SetWindowBoundsParams{WindowID: place.id, Bounds: &b}); err != nil {
		return fmt.Errorf("moving the window: %w", err)
	}
	place.scale = k
	s.moved[p] = place
	// Once the frames have seen this screen, the next screen they see is
	// the next move's: the way back is then awaited on a known order.
	p.awaitFrames(ctx, func(f screenSize) bool { return f.Ratio == k })
	return nil
}

// dropUnused forgets closed pages and removes the screens no window is on.
func (e *emulated) dropUnused(ctx context.Context, p *Page) {
	s := &e.sharp
	used := map[float64]bool{}
	for q, place := range s.moved {
		select {
		case <-q.Done():
			delete(s.moved, q)
		default:
			used[place.scale] = true
		}
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
