package browsertest

import (
	"context"
	"testing"

	"github.com/poppy-browser/poppy-browser/browser"
)

// Tap touches p at (x, y), viewport CSS pixels, and lifts the finger, as a
// person's tap on a phone; it fails t if the browser refuses either event.
func Tap(ctx context.Context, t testing.TB, p *browser.Page, x, y float64) {
	t.Helper()
	if err := p.Touch(ctx, "start", []browser.TouchPoint{{X: x, Y: y}}); err != nil {
		t.Fatal(err)
	}
	if err := p.Touch(ctx, "end", nil); err != nil {
		t.Fatal(err)
	}
}

// TapOn taps the centre of the element sel of p's top frame.
func TapOn(ctx context.Context, t testing.TB, p *browser.Page, sel string) {
	t.Helper()
	r, err := p.Locate(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	Tap(ctx, t, p, r.X+r.Width/2, r.Y+r.Height/2)
}
