package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// Bounds of a viewer's reported screen, so a client cannot ask the browser
// for an absurd viewport.
const (
	minViewerSide = 120
	maxViewerSide = 4096
	maxPoints     = 5
)

// touchPoint is one finger in a "touch" message, in viewport CSS pixels.
type touchPoint struct {
	X  float64 `json:"x"`
	Y  float64 `json:"y"`
	ID int     `json:"id"`
}

// focusMsg tells the viewer in control which text field of the page has
// the focus after their tap, so it can open its own keyboard over it;
// Field is absent when the focus is on no text field.
type focusMsg struct {
	Type  string     `json:"type"` // "focus"
	Field *fieldRect `json:"field,omitempty"`
}

type fieldRect struct {
	boxMsg
	Kind string `json:"kind"` // the input type: text, email, tel, number, password...
}

// Viewer values of the state message: which viewer holds control.
const (
	viewerYou     = "you"     // this viewer
	viewerAnother = "another" // another live view, or the terminal UI
)

// setViewer records the screen a client reported. When that client holds
// control, the pages follow it (a rotate, a resize).
func (l *Live) setViewer(ctx context.Context, c *client, m inMsg) error {
	if !finite(m.Width) || !finite(m.Height) || !finite(m.Scale) ||
		m.Width < minViewerSide || m.Height < minViewerSide || m.Width > maxViewerSide || m.Height > maxViewerSide ||
		m.Scale < 0.5 || m.Scale > 5 {
		return errors.New("viewer: size out of bounds")
	}
	d := &control.Device{Width: int(m.Width), Height: int(m.Height), Scale: m.Scale, Mobile: m.Mobile, Touch: m.Touch}
	l.mu.Lock()
	c.device = d
	l.mu.Unlock()
	if !l.controls(c) {
		return nil
	}
	if err := l.ctl.User().Resize(ctx, emulated(d)); err != nil {
		return err
	}
	l.recast()
	return nil
}

// emulated is the device the pages are shown on for a viewer: a phone or
// tablet's own (the Company's page lays out for it); nil for a desktop
// viewer, which sees the agent's desktop layout scaled to its window, as a
// desktop browser would show it.
func emulated(d *control.Device) *control.Device {
	if d == nil || !d.Mobile {
		return nil
	}
	return d
}

// take gives control to the User through client c, which becomes the
// viewer in control. When the User already holds control elsewhere (another
// viewer, the terminal UI), this is that User's explicit move to this
// screen: the pages follow it.
func (l *Live) take(ctx context.Context, c *client) error {
	p := l.proofOf(c, l.ctl.Status())
	if p == nil {
		return control.ErrNoProof
	}
	l.mu.Lock()
	d := emulated(c.device)
	l.mu.Unlock()
	if l.ctl.Holder() == spec.ControllerUser {
		if err := l.ctl.User().Resize(ctx, d); err == nil {
			l.recast()
		} else if !errors.Is(err, control.ErrNotHeld) {
			l.log.Warn("live view could not follow the viewer", "err", err)
		}
		l.claim(c)
		l.markTurn(c, l.ctl.Status().Epoch)
		l.broadcastState()
		return nil
	}
	// Claimed before the take is published, so every viewer's state for
	// the take already says who holds it.
	l.claim(c)
	page := l.page()
	pinned := l.pinStep(ctx, page)
	if p.proof.Kind == control.ProofInsecureLink {
		l.warnInsecureTake()
	}
	if err := l.ctl.User().TakeOn(ctx, d, p.proof); err != nil {
		l.mu.Lock()
		if l.controller == c {
			l.controller = nil
		}
		l.mu.Unlock()
		return err
	}
	l.markTurn(c, l.ctl.Status().Epoch)
	l.followAfterTake(page, pinned)
	return nil
}

// claim makes c the viewer in control for the User's current turn.
func (l *Live) claim(c *client) {
	epoch := l.ctl.Status().Epoch
	l.mu.Lock()
	l.controller, l.controllerEpoch = c, epoch
	l.mu.Unlock()
}

// controllerLocked is the viewer in control, or nil when the User holds
// control without one (the terminal UI took it, the viewer left) or the
// agent holds it. l.mu must be held; st is the current status.
func (l *Live) controllerLocked(st control.Status) *client {
	if st.Controller != spec.ControllerUser || l.controller == nil || l.controllerEpoch != st.Epoch {
		return nil
	}
	if _, ok := l.clients[l.controller]; !ok {
		return nil
	}
	return l.controller
}

// controls reports whether c is the viewer in control.
func (l *Live) controls(c *client) bool {
	st := l.ctl.Status()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.controllerLocked(st) == c
}

// mayInput reports whether input from c reaches the page: the User holds
// control and c is their viewer in control. A viewer becomes that only by
// its own take (take): while the User holds control with no viewer in
// control (they took it at the terminal, or the viewer in control left),
// every viewer's input is dropped until one takes control there.
func (l *Live) mayInput(c *client) bool {
	st := l.ctl.Status()
	if st.Controller != spec.ControllerUser {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.controllerLocked(st) == c && l.proofOfLocked(c, st) != nil
}

// viewerFor is the state's viewer field for c.
func (l *Live) viewerFor(c *client, st control.Status) string {
	if st.Controller != spec.ControllerUser {
		return ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch l.controllerLocked(st) {
	case c:
		return viewerYou
	case nil:
		return ""
	default:
		return viewerAnother
	}
}

// touch passes a finger on the picture to the page: as touch events when
// the page is shown on the viewer's touch screen (so the page's own touch
// handlers, taps and swipe scrolling work as on a phone), else as the mouse
// (a desktop layout with a touch laptop). After the finger lifts, the
// viewer hears which text field has the focus.
func (l *Live) touch(ctx context.Context, c *client, p *browser.Page, m inMsg) error {
	if len(m.Points) > maxPoints {
		return errors.New("touch: too many fingers")
	}
	pts := make([]browser.TouchPoint, 0, len(m.Points))
	for _, tp := range m.Points {
		if !finite(tp.X) || !finite(tp.Y) {
			return errors.New("touch: bad coordinates")
		}
		pts = append(pts, browser.TouchPoint{X: tp.X, Y: tp.Y, ID: tp.ID})
	}
	var err error
	if st := l.ctl.Status(); st.Device != nil && st.Device.Touch {
		err = p.Touch(ctx, m.Event, pts)
	} else {
		err = touchAsMouse(ctx, p, m.Event, pts, c)
	}
	if err != nil || m.Event != "end" {
		return err
	}
	l.reportFocus(ctx, c, p)
	return nil
}

// How long after a tap the live view looks for the field it focused: the
// browser turns the lifted finger into a tap (and the focus) after the
// touch event is answered, so the focus is read a few times until a text
// field has it or the bound passes.
const (
	focusWait = 600 * time.Millisecond
	focusPoll = 60 * time.Millisecond
)

// touchAsMouse drives the mouse with the first finger. The client keeps
// where it was, for the release.
func touchAsMouse(ctx context.Context, p *browser.Page, event string, pts []browser.TouchPoint, c *client) error {
	if len(pts) > 0 {
		c.lastTouch = pts[0]
	}
	at := c.lastTouch
	ev := browser.MouseEvent{X: at.X, Y: at.Y, Button: "left", ClickCount: 1}
	switch event {
	case "start":
		if err := p.Mouse(ctx, browser.MouseEvent{Type: "move", X: at.X, Y: at.Y}); err != nil {
			return err
		}
		ev.Type = "down"
	case "move":
		ev.Type = "move"
	case "end", "cancel":
		ev.Type = "up"
	default:
		return fmt.Errorf("touch: unknown event %q", event)
	}
	return p.Mouse(ctx, ev)
}

// reportFocus tells c, after its tap, which text field has the focus, or
// none. It runs beside the client's reader, so the next tap is not held up;
// a newer tap ends it.
func (l *Live) reportFocus(ctx context.Context, c *client, p *browser.Page) {
	seq := c.taps.Add(1)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), focusWait)
	l.wg.Go(func() {
		defer cancel()
		tick := time.NewTicker(focusPoll)
		defer tick.Stop()
		for c.taps.Load() == seq {
			f, ok, err := p.FocusedField(ctx)
			if err == nil && ok {
				c.queue(focusMsg{Type: "focus", Field: &fieldRect{boxMsg{X: f.X, Y: f.Y, Width: f.Width, Height: f.Height}, f.Kind}})
				return
			}
			select {
			case <-tick.C:
			case <-c.done:
				return
			case <-ctx.Done():
				if c.taps.Load() == seq {
					c.queue(focusMsg{Type: "focus"})
				}
				return
			}
		}
	})
}
