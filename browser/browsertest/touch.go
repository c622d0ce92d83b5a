package browsertest

import (
	"context"
	"math"
	"testing"
	"time"

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

// pictureSlack is how many CSS pixels of height a picture may differ from
// the page it shows and still be tapped.
const pictureSlack = 8

// TapThrough taps the picture of a page shown on another page, as a person
// taps a live view on their phone: viewer shows a picture of target's
// visual viewport in its <img> pic, and the tap lands on the centre of
// target's element sel, which must be in view. It first waits (up to 20
// s, failing t) until the picture shows target as it is now: the
// picture has target's shape, so a picture still on its way after a resize
// is not tapped at a stale place. The caller waits for the viewer's own
// layout to settle (its banner, its buttons) first.
func TapThrough(ctx context.Context, t testing.TB, viewer *browser.Page, pic string, target *browser.Page, sel string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var shown struct{ X, Y, Width, Height float64 }
	// The element's centre in the visual viewport (a phone may have panned
	// it within a wider layout), and that viewport's size, read together.
	var at struct {
		X, Y, Width, Height float64
		Found               bool
	}
	for {
		if err := viewer.MainFrame().Call(ctx, browser.UtilityWorld, `function(sel) {
			const r = document.querySelector(sel).getBoundingClientRect();
			return {X: r.x, Y: r.y, Width: r.width, Height: r.height};
		}`, &shown, pic); err != nil {
			t.Fatalf("reading the picture %s: %v (last: picture %+v, page %+v)", pic, err, shown, at)
		}
		if err := target.MainFrame().Call(ctx, browser.UtilityWorld, `function(sel) {
			const v = visualViewport, el = document.querySelector(sel);
			if (!el) return {Found: false};
			const r = el.getBoundingClientRect();
			return {X: r.x + r.width / 2 - v.offsetLeft, Y: r.y + r.height / 2 - v.offsetTop,
				Width: v.width, Height: v.height, Found: true};
		}`, &at, sel); err != nil {
			t.Fatalf("reading the page: %v (last: picture %+v, page %+v)", err, shown, at)
		}
		if !at.Found {
			t.Fatalf("no %s on the page to tap", sel)
		}
		// Within a few rows: after a resize of a few pixels the screencast
		// may keep the picture from before it, which still maps a tap
		// (taps scale with the width), while a picture from before a real
		// change of shape (a rotate, a new layout) does not.
		if k := shown.Width / at.Width; shown.Width > 0 && at.Width > 0 && math.Abs(shown.Height/k-at.Height) <= pictureSlack {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waited for the picture %s to show the page as it is (picture %+v, page's visual viewport %vx%v)", pic, shown, at.Width, at.Height)
		case <-time.After(50 * time.Millisecond):
		}
	}
	if at.X < 0 || at.Y < 0 || at.X > at.Width || at.Y > at.Height {
		t.Fatalf("%s is out of view (centre %v,%v in a %vx%v viewport): a person would scroll first", sel, at.X, at.Y, at.Width, at.Height)
	}
	k := shown.Width / at.Width
	Tap(ctx, t, viewer, shown.X+at.X*k, shown.Y+at.Y*k)
}
