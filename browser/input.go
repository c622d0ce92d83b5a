package browser

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp/kb"
)

// MouseEvent is one pointer event in the top frame's viewport (CSS pixels).
type MouseEvent struct {
	Type       string // "down", "up", "move", "wheel"
	X, Y       float64
	Button     string // "left" (default), "middle", "right"
	ClickCount int
	DeltaX     float64
	DeltaY     float64
}

// Mouse dispatches one pointer event to the page.
func (p *Page) Mouse(ctx context.Context, ev MouseEvent) error {
	params := input.DispatchMouseEventParams{X: ev.X, Y: ev.Y}
	button := input.MouseButtonLeft
	switch ev.Button {
	case "middle":
		button = input.MouseButtonMiddle
	case "right":
		button = input.MouseButtonRight
	}
	switch ev.Type {
	case "down":
		params.Type, params.Button = input.DispatchMouseEventTypeMousePressed, button
		params.ClickCount = int64(max(ev.ClickCount, 1))
	case "up":
		params.Type, params.Button = input.DispatchMouseEventTypeMouseReleased, button
		params.ClickCount = int64(max(ev.ClickCount, 1))
	case "move":
		params.Type = input.DispatchMouseEventTypeMouseMoved
	case "wheel":
		// cdproto omits zero deltas, which Chromium requires for a wheel.
		wheel := map[string]any{"type": input.DispatchMouseEventTypeMouseWheel, "x": ev.X, "y": ev.Y, "deltaX": ev.DeltaX, "deltaY": ev.DeltaY}
		return p.t.call(ctx, mainThread, input.CommandDispatchMouseEvent, wheel, nil)
	default:
		return fmt.Errorf("mouse event: unknown type %q", ev.Type)
	}
	return p.dispatch(ctx, func() error { return p.t.call(ctx, mainThread, input.CommandDispatchMouseEvent, params, nil) })
}

// Click moves the pointer to (x, y), then presses and releases the left
// button there. The three events go out in order in one round trip.
func (p *Page) Click(ctx context.Context, x, y float64) error {
	events := []any{
		input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: x, Y: y},
		input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMousePressed, X: x, Y: y, Button: input.MouseButtonLeft, ClickCount: 1},
		input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseReleased, X: x, Y: y, Button: input.MouseButtonLeft, ClickCount: 1},
	}
	err := p.dispatch(ctx, func() error {
		return p.t.batch(ctx, mainThread, input.CommandDispatchMouseEvent, events)
	})
	if err != nil {
		return fmt.Errorf("clicking: %w", err)
	}
	return nil
}

// Key dispatches a key down or up. key is a name as in Playwright ("Enter",
// "Tab", "ArrowDown", " ", "a"), with modifiers before it joined by "+"
// ("Shift+Tab", "Control+a"): they are held for this key only.
func (p *Page) Key(ctx context.Context, key string, down bool) error {
	mods, key, err := splitModifiers(key)
	if err != nil {
		return err
	}
	k, err := lookupKey(key)
	if err != nil {
		return err
	}
	params := input.DispatchKeyEventParams{
		Key:                   k.Key,
		Code:                  k.Code,
		WindowsVirtualKeyCode: k.Windows,
		NativeVirtualKeyCode:  k.Native,
		Modifiers:             mods,
	}
	if down {
		params.Type = input.DispatchKeyEventTypeKeyDown
		if k.Text != "" && mods&^modShift == 0 {
			params.Text, params.UnmodifiedText = k.Text, k.Unmodified
		} else {
			params.Type = input.DispatchKeyEventTypeRawKeyDown
		}
	} else {
		params.Type = input.DispatchKeyEventTypeKeyUp
	}
	return p.dispatch(ctx, func() error { return p.t.call(ctx, mainThread, input.CommandDispatchKeyEvent, params, nil) })
}

// Press sends key down then key up.
func (p *Page) Press(ctx context.Context, key string) error {
	if err := p.Key(ctx, key, true); err != nil {
		return fmt.Errorf("pressing %s: %w", key, err)
	}
	if err := p.Key(ctx, key, false); err != nil {
		return fmt.Errorf("pressing %s: %w", key, err)
	}
	return nil
}

// InsertText types text into the focused element as one input.
func (p *Page) InsertText(ctx context.Context, text string) error {
	return p.dispatch(ctx, func() error {
		_, err := cdp.Call(ctx, p.t.main(), input.InsertText, input.InsertTextParams{Text: text})
		return err
	})
}

var keysByName = sync.OnceValue(func() map[string]*kb.Key {
	m := make(map[string]*kb.Key, len(kb.Keys))
	for _, k := range kb.Keys {
		if _, ok := m[k.Key]; !ok || k.Key == string(rune(0)) {
			m[k.Key] = k
		}
	}
	return m
})

// Modifier bits of Input.dispatchKeyEvent.
const (
	modAlt   = 1
	modCtrl  = 2
	modMeta  = 4
	modShift = 8
)

// splitModifiers reads "Shift+Control+Tab" as modifiers and a key; a lone
// "+" is the plus key.
func splitModifiers(name string) (int64, string, error) {
	var mods int64
	for {
		i := strings.Index(name, "+")
		if i <= 0 || i == len(name)-1 {
			return mods, name, nil
		}
		switch name[:i] {
		case "Shift":
			mods |= modShift
		case "Control", "Ctrl":
			mods |= modCtrl
		case "Alt":
			mods |= modAlt
		case "Meta":
			mods |= modMeta
		default:
			return 0, "", fmt.Errorf("unknown modifier %q", name[:i])
		}
		name = name[i+1:]
	}
}

func lookupKey(name string) (*kb.Key, error) {
	if k, ok := keysByName()[name]; ok {
		return k, nil
	}
	if r := []rune(name); len(r) == 1 {
		if k, ok := kb.Keys[r[0]]; ok {
			return k, nil
		}
	}
	return nil, fmt.Errorf("unknown key %q", name)
}
