package browser

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
)

// Device is the screen a page is shown on when it is not the browser's own
// window: the User's phone or laptop during their turn. Width and Height are
// CSS pixels; Scale is the device pixel ratio.
type Device struct {
	Width, Height int
	Scale         float64
	Mobile        bool // a phone or tablet: the page's viewport meta applies, scrollbars overlay
	Touch         bool // the page sees a touch screen (maxTouchPoints, touch events)
}

// emulated is the device pages are shown on, browser-wide and per browser
// context; nil means the browser's own window.
type emulated struct {
	mu        sync.Mutex // serialises changes, so pages never end up mixed
	all       *Device
	byContext map[cdp.BrowserContextID]*Device
	sharp     sharpScreens // where the windows of shown pages are, see sharp.go
}

func (e *emulated) forLocked(p *Page) *Device {
	if d, ok := e.byContext[p.browserContext]; ok {
		return d
	}
	return e.all
}

// EmulateDevice shows every page of the browser, and every page opened
// later, on d: its CSS size, scale, mobile flag and touch screen. Nil
// returns the pages to the browser's own viewport. Pages that are gone are
// skipped; the other pages' failures are joined.
func (b *Browser) EmulateDevice(ctx context.Context, d *Device) error {
	b.emu.mu.Lock()
	defer b.emu.mu.Unlock()
	b.emu.all = d
	clear(b.emu.byContext)
	err := emulateEach(ctx, b.Pages(), d)
	b.emu.refreshHidden(ctx)
	return err
}

// EmulateDevice is [Browser.EmulateDevice] for the pages of this context.
func (c *Context) EmulateDevice(ctx context.Context, d *Device) error {
	b := c.b
	b.emu.mu.Lock()
	defer b.emu.mu.Unlock()
	if b.emu.byContext == nil {
		b.emu.byContext = map[cdp.BrowserContextID]*Device{}
	}
	b.emu.byContext[c.id] = d
	err := emulateEach(ctx, c.Pages(), d)
	b.emu.refreshHidden(ctx)
	return err
}

func emulateEach(ctx context.Context, ps []*Page, d *Device) error {
	var errs error
	for _, p := range ps {
		if err := p.emulate(ctx, d); err != nil && !isGone(err) {
			errs = errors.Join(errs, err)
		}
	}
	return errs
}

// newPageDevice shows a page that just attached on the device of its
// context, if any.
func (b *Browser) newPageDevice(ctx context.Context, p *Page) {
	b.emu.mu.Lock()
	defer b.emu.mu.Unlock()
	d := b.emu.forLocked(p)
	if d == nil {
		return
	}
	if err := p.emulate(ctx, d); err != nil && !isGone(err) {
		b.log.Warn("emulating the device on a new page", "err", err)
	}
}

// forgetContextDevice drops a closed context's device.
func (b *Browser) forgetContextDevice(id cdp.BrowserContextID) {
	b.emu.mu.Lock()
	defer b.emu.mu.Unlock()
	delete(b.emu.byContext, id)
}

// emulate sets (d) or clears (nil) the page's device metrics and touch,
// and waits until the page's scripts see the new screen: the browser
// answers before the renderer applies the size, and whoever looks next
// (the agent after a hand back, the User's picture) must see the new
// layout.
func (p *Page) emulate(ctx context.Context, d *Device) error {
	if d == nil {
		if err := p.showOwnScreen(ctx); err != nil {
			return err
		}
		p.b.emu.sharpen(ctx, p, 1)
		p.mu.Lock()
		own := p.ownScreen
		p.mu.Unlock()
		switch primary := p.b.emu.sharp.primary; {
		case own != nil:
			p.awaitScreen(ctx, *own)
		case primary != nil:
			// A tab opened during the device's turn has no screen of its
			// own yet: it gets the primary screen, in every frame.
			p.awaitScreen(ctx, screenSize{Width: primary.Width, Height: primary.Height})
			p.awaitFrames(ctx, func(f screenSize) bool { return f == *primary })
		}
		return nil
	}
	p.mu.Lock()
	known := p.ownScreen != nil
	p.mu.Unlock()
	// A tab a page opened on the device's screen has no screen of its own
	// to read.
	if !known && !p.b.emu.onVirtual(ctx, p) {
		rctx, cancel := context.WithTimeout(ctx, screenSettle)
		own, err := p.readScreen(rctx)
		cancel()
		if err == nil {
			p.mu.Lock()
			if p.ownScreen == nil {
				p.ownScreen = &own
			}
			p.mu.Unlock()
			if p.b.emu.sharp.primary == nil {
				p.b.emu.sharp.primary = &screenSize{Width: own.Width, Height: own.Height, Ratio: own.Ratio}
			}
		}
	}
	if d.Width <= 0 || d.Height <= 0 || d.Scale <= 0 {
		return fmt.Errorf("emulating a device: bad size %dx%d@%v", d.Width, d.Height, d.Scale)
	}
	p.b.emu.sharpen(ctx, p, frameScale(d.Scale))
	if err := p.showOn(ctx, d); err != nil {
		return err
	}
	p.awaitScreen(ctx, screenSize{Width: float64(d.Width), Height: float64(d.Height)})
	return nil
}

// screenSize is the screen the page's scripts see (screen.width, height)
// and, for the page's own screen, its window (innerWidth, innerHeight):
// the renderer may show the screen before it lays out at the window's size.
// Ratio is devicePixelRatio, awaited for the page's own screen only.
type screenSize struct{ Width, Height, InnerWidth, InnerHeight, Ratio float64 }

// screenSettle bounds the wait for a page to take a new screen: a page
// whose main thread is busy must not hold up a take or a hand back.
const screenSettle = 2 * time.Second

func (p *Page) readScreen(ctx context.Context) (screenSize, error) {
	var s screenSize
	err := p.MainFrame().Call(ctx, UtilityWorld, `function() {
		return {Width: screen.width, Height: screen.height, InnerWidth: innerWidth, InnerHeight: innerHeight, Ratio: devicePixelRatio};
	}`, &s)
	return s, err
}

// framesSee reports whether every frame of the page other than the top
// one sees a screen that ok accepts (its Width, Height, Ratio): an
// out-of-process iframe takes a window's move to another screen some time
// after the page does. A frame that does not answer (gone, busy) is not
// waited for.
func (p *Page) framesSee(ctx context.Context, ok func(screenSize) bool) bool {
	top := p.MainFrame().ID
	for _, f := range p.Frames() {
		if f.ID == top {
			continue
		}
		var got screenSize
		if err := f.Call(ctx, UtilityWorld, `function() {
			return {Width: screen.width, Height: screen.height, Ratio: devicePixelRatio};
		}`, &got); err != nil {
			continue
		}
		if !ok(got) {
			return false
		}
	}
	return true
}

// awaitFrames waits, up to screenSettle, until framesSee(ok).
func (p *Page) awaitFrames(ctx context.Context, ok func(screenSize) bool) {
	ctx, cancel := context.WithTimeout(ctx, screenSettle)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !p.framesSee(ctx, ok) {
		select {
		case <-tick.C:
		case <-ctx.Done():
			p.b.log.Debug("the page's frames did not show the new screen in time")
			return
		}
	}
}

// awaitScreen waits, up to screenSettle, until the page's scripts see want
// (its window's size too, where want has one).
func (p *Page) awaitScreen(ctx context.Context, want screenSize) {
	ctx, cancel := context.WithTimeout(ctx, screenSettle)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		got, err := p.readScreen(ctx)
		if want.InnerWidth == 0 {
			got.InnerWidth, got.InnerHeight, got.Ratio = 0, 0, 0
		}
		if err == nil && got == want && (want.InnerWidth == 0 || p.framesSee(ctx, func(f screenSize) bool {
			return f.Width == want.Width && f.Height == want.Height && f.Ratio == want.Ratio
		})) {
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			p.b.log.Debug("the page did not show the new screen in time", "want", want)
			return
		}
	}
}

// showOwnScreen clears the device metrics and touch emulation.
func (p *Page) showOwnScreen(ctx context.Context) error {
	if err := p.t.call(ctx, mainThread, emulation.CommandClearDeviceMetricsOverride, nil, nil); err != nil {
		return fmt.Errorf("restoring the viewport: %w", err)
	}
	if err := p.t.call(ctx, mainThread, emulation.CommandSetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{}, nil); err != nil {
		return fmt.Errorf("restoring the viewport: %w", err)
	}
	return nil
}

// showOn sets the device metrics and touch emulation of d.
func (p *Page) showOn(ctx context.Context, d *Device) error {
	if d.Width <= 0 || d.Height <= 0 || d.Scale <= 0 {
		return fmt.Errorf("emulating a device: bad size %dx%d@%v", d.Width, d.Height, d.Scale)
	}
	metrics := emulation.SetDeviceMetricsOverrideParams{
		Width: int64(d.Width), Height: int64(d.Height), DeviceScaleFactor: d.Scale, Mobile: d.Mobile,
		ScreenWidth: int64(d.Width), ScreenHeight: int64(d.Height),
	}
	if err := p.t.call(ctx, mainThread, emulation.CommandSetDeviceMetricsOverride, metrics, nil); err != nil {
		return fmt.Errorf("emulating a device: %w", err)
	}
	touch := emulation.SetTouchEmulationEnabledParams{Enabled: d.Touch}
	if d.Touch {
		touch.MaxTouchPoints = 5
	}
	if err := p.t.call(ctx, mainThread, emulation.CommandSetTouchEmulationEnabled, touch, nil); err != nil {
		return fmt.Errorf("emulating a device: %w", err)
	}
	return nil
}

// TouchPoint is one finger on the page's viewport (CSS pixels).
type TouchPoint struct {
	X, Y float64
	ID   int
}

// Touch dispatches one touch event: "start" and "move" with the fingers on
// the screen, "end" and "cancel" with none. The browser turns a short
// start-end into a tap (with the mouse and click events a phone's browser
// sends) and a moving finger into a scroll.
func (p *Page) Touch(ctx context.Context, event string, points []TouchPoint) error {
	params := input.DispatchTouchEventParams{TouchPoints: []*input.TouchPoint{}}
	switch event {
	case "start":
		params.Type = input.DispatchTouchEventTypeTouchStart
	case "move":
		params.Type = input.DispatchTouchEventTypeTouchMove
	case "end":
		params.Type = input.DispatchTouchEventTypeTouchEnd
	case "cancel":
		params.Type = input.DispatchTouchEventTypeTouchCancel
	default:
		return fmt.Errorf("touch event: unknown type %q", event)
	}
	if event == "start" || event == "move" {
		if len(points) == 0 {
			return fmt.Errorf("touch event: %s without a finger", event)
		}
		for _, tp := range points {
			id := float64(tp.ID)
			params.TouchPoints = append(params.TouchPoints, &input.TouchPoint{X: tp.X, Y: tp.Y, ID: &id})
		}
	}
	return p.dispatch(ctx, func() error { return p.t.call(ctx, mainThread, input.CommandDispatchTouchEvent, params, nil) })
}

//go:embed js/focused.js
var focusedJS string

// Field is the focused element of a page's top frame that takes typed
// text: its box in the visual viewport (CSS pixels, as input takes them)
// and its input type ("text", "email", "tel", "number", "password", ...).
type Field struct {
	Rect
	Kind string
}

// FocusedField returns the focused text field of the top frame (looking
// into open shadow roots), or ok false when the focus is on no such field.
func (p *Page) FocusedField(ctx context.Context) (f Field, ok bool, err error) {
	var r *Field
	if err := p.MainFrame().Call(ctx, UtilityWorld, focusedJS, &r); err != nil {
		return Field{}, false, fmt.Errorf("reading the focused field: %w", err)
	}
	if r == nil {
		return Field{}, false, nil
	}
	return *r, true, nil
}
