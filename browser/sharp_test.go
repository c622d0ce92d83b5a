package browser_test

import (
	"bytes"
	"context"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
)

// sharpPage is a Company page with text, a target for clicks and a
// cross-site (out-of-process) iframe.
const sharpPage = `<!doctype html><meta name=viewport content="width=device-width">
<body style="margin:0;font:14px sans-serif"><p>Check in for flight PA1234, Lisbon to Oslo.</p>
<div id=t style="position:absolute;left:100px;top:200px;width:40px;height:40px;background:#c33"></div>
<iframe src="http://other.test/inner" style="position:absolute;left:0;top:300px"></iframe>
<script>window.hits = []; addEventListener("click", e => hits.push({X: e.clientX, Y: e.clientY, On: e.target.id}));</script>`

// agentSees is what the page's scripts see of the screen, in the page and
// in its iframe, and the agent's screenshot.
type agentSees struct {
	Page, Frame  string
	ShotW, ShotH int
	Shot         []byte
}

const screenJS = `function() { return JSON.stringify({dpr: devicePixelRatio, w: innerWidth, h: innerHeight,
	sw: screen.width, sh: screen.height, x: screenX, y: screenY, oneX: matchMedia("(resolution: 1dppx)").matches}) }`

func seen(ctx context.Context, t *testing.T, p *browser.Page) agentSees {
	t.Helper()
	var a agentSees
	var err error
	if a.Page, err = evalIn(ctx, p.MainFrame(), screenJS); err != nil {
		t.Fatal(err)
	}
	for _, f := range p.Frames() {
		if hostOfURL(f.URL) == "other.test" {
			if a.Frame, err = evalIn(ctx, f, screenJS); err != nil {
				t.Fatal(err)
			}
		}
	}
	shot, err := p.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := image.DecodeConfig(bytes.NewReader(shot.PNG))
	if err != nil {
		t.Fatal(err)
	}
	a.ShotW, a.ShotH, a.Shot = c.Width, c.Height, shot.PNG
	return a
}

// frameSize is the first screencast frame's picture size and the CSS size
// it shows.
func frameSize(ctx context.Context, t *testing.T, p *browser.Page) (w, h int, cssW, cssH float64, n int) {
	t.Helper()
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make(chan browser.ScreencastFrame, 1)
	go p.Screencast(cctx, func(f browser.ScreencastFrame) {
		select {
		case got <- f:
		default:
		}
	})
	select {
	case f := <-got:
		c, _, err := image.DecodeConfig(bytes.NewReader(f.JPEG))
		if err != nil {
			t.Fatal(err)
		}
		return c.Width, c.Height, f.Width, f.Height, len(f.JPEG)
	case <-ctx.Done():
		t.Fatal("no screencast frame")
	}
	return
}

// TestDeviceFramesSharp: while a page is shown on a phone at 3x, its
// screencast frames have at least 2 picture pixels per CSS pixel (the
// window is on a 2x screen); before and after, what the agent sees is
// exactly the same: devicePixelRatio 1 in the page and in its
// out-of-process iframe, the same window and screen, the same screenshot,
// clicks where aimed, and 1x frames of the desktop layout within the
// bound.
func TestDeviceFramesSharp(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	s := newSite(t)
	s.html("company.test/", sharpPage)
	s.html("other.test/inner", `<p>other</p>`)
	b := launchSite(t, ctx, s, &browser.Options{Width: 1280, Height: 900})
	p := openPage(t, ctx, b)
	if _, err := p.Navigate(ctx, "http://company.test/"); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the iframe", func() bool { return len(p.Frames()) == 2 })
	click := func(when string) {
		t.Helper()
		if _, err := evalIn(ctx, p.MainFrame(), `function() { hits = []; return "" }`); err != nil {
			t.Fatal(err)
		}
		if err := p.Click(ctx, 120, 220); err != nil {
			t.Fatal(err)
		}
		hits, err := evalIn(ctx, p.MainFrame(), `function() { return JSON.stringify(hits) }`)
		if err != nil {
			t.Fatal(err)
		}
		if want := `[{"X":120,"Y":220,"On":"t"}]`; hits != want {
			t.Errorf("%s: a click at 120,220 gave %s, want %s", when, hits, want)
		}
	}

	before := seen(ctx, t, p)
	click("before")
	w, h, cw, ch, n := frameSize(ctx, t, p)
	if float64(w) != cw || float64(h) != ch || w > browser.MaxFrameSide || h > browser.MaxFrameSide {
		t.Errorf("the agent's layout: frames %dx%d for %vx%v CSS px, want 1x within %d", w, h, cw, ch, browser.MaxFrameSide)
	}
	t.Logf("the agent's layout: frames %dx%d for %vx%v CSS px, %d bytes; the page sees %s, its iframe %s", w, h, cw, ch, n, before.Page, before.Frame)

	phone := &browser.Device{Width: 390, Height: 844, Scale: 3, Mobile: true, Touch: true}
	if err := b.EmulateDevice(ctx, phone); err != nil {
		t.Fatal(err)
	}
	w, h, cw, ch, n = frameSize(ctx, t, p)
	if cw != 390 || ch != 844 || float64(w)/cw < 2 || float64(h)/ch < 2 {
		t.Errorf("a phone at 3x: frames %dx%d for %vx%v CSS px (%.2fx), want 390x844 at 2x or more", w, h, cw, ch, float64(w)/cw)
	}
	t.Logf("a phone at 3x: frames %dx%d for %vx%v CSS px (%.2fx), %d bytes", w, h, cw, ch, float64(w)/cw, n)

	if err := b.EmulateDevice(ctx, nil); err != nil {
		t.Fatal(err)
	}
	after := seen(ctx, t, p)
	if after.Page != before.Page || after.Frame != before.Frame {
		t.Errorf("after the device, the page sees %s and its iframe %s; before: %s and %s", after.Page, after.Frame, before.Page, before.Frame)
	}
	if after.ShotW != before.ShotW || after.ShotH != before.ShotH || !bytes.Equal(after.Shot, before.Shot) {
		t.Errorf("after the device, the screenshot is %dx%d (same bytes: %v), before %dx%d", after.ShotW, after.ShotH, bytes.Equal(after.Shot, before.Shot), before.ShotW, before.ShotH)
	}
	click("after")
	w, h, cw, ch, _ = frameSize(ctx, t, p)
	if float64(w) != cw || float64(h) != ch {
		t.Errorf("after the device: frames %dx%d for %vx%v CSS px, want 1x", w, h, cw, ch)
	}
}

// TestDevicePopupBack: a tab the page opens during the phone turn is
// shown on the phone, sharp, and after the turn it sees the agent's
// screen as the first tab does.
func TestDevicePopupBack(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	s := newSite(t)
	s.html("company.test/", sharpPage)
	s.html("other.test/inner", `<p>other</p>`)
	s.html("company.test/popup", `<p>popup</p>`)
	s.html("company.test/opener", sharpPage+`<button style="position:fixed;left:0;top:0;width:200px;height:100px" onclick="window.open('http://company.test/popup')">open</button>`)
	b := launchSite(t, ctx, s, &browser.Options{Width: 1280, Height: 900})
	p := openPage(t, ctx, b)
	if _, err := p.Navigate(ctx, "http://company.test/opener"); err != nil {
		t.Fatal(err)
	}
	before, err := evalIn(ctx, p.MainFrame(), screenJS)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.EmulateDevice(ctx, &browser.Device{Width: 390, Height: 844, Scale: 3, Mobile: true, Touch: true}); err != nil {
		t.Fatal(err)
	}
	mark := p.Tabs().Mark()
	if err := p.Click(ctx, 50, 50); err != nil {
		t.Fatal(err)
	}
	var popup *browser.Page
	poll(t, ctx, "the popup", func() bool {
		for _, tab := range p.Tabs().OpenedSince(mark) {
			if tab.Page != nil && tab.Page.URL() == "http://company.test/popup" {
				popup = tab.Page
				return true
			}
		}
		return false
	})
	poll(t, ctx, "the popup on the phone (no viewport meta: laid out at 980 CSS px)", func() bool {
		s, err := evalIn(ctx, popup.MainFrame(), screenJS)
		return err == nil && strings.Contains(s, `"dpr":3,`) && strings.Contains(s, `"sw":390,"sh":844`)
	})
	// The popup is shown zoomed out (more CSS px than the phone's 390):
	// its frames have 2 picture pixels per pixel of the phone's screen.
	w, h, cw, ch, _ := frameSize(ctx, t, popup)
	if w < 2*390 || cw < 390 || math.Abs(float64(w)/float64(h)-cw/ch) > 0.02*cw/ch {
		t.Errorf("the popup on a phone at 3x: frames %dx%d for %vx%v CSS px, want 2x the phone's 390-px width, of the CSS size's shape", w, h, cw, ch)
	}
	if err := b.EmulateDevice(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, q := range []*browser.Page{p, popup} {
		got, err := evalIn(ctx, q.MainFrame(), screenJS)
		if err != nil {
			t.Fatal(err)
		}
		// The popup's window has its own place, as it would without
		// the phone; the rest is the first tab's. (Chromium moves the
		// opener's screenY when a popup opens, phone or not: 20 to 107.)
		want := withoutY(before)
		got = withoutY(got)
		if q == popup {
			got, want = withoutPlace(got), withoutPlace(want)
		}
		if got != want {
			t.Errorf("after the turn, %s sees %s, want %s", q.URL(), got, want)
		}
	}
}

func withoutPlace(s string) string {
	if i := strings.Index(s, `,"x":`); i >= 0 {
		if j := strings.Index(s, `,"oneX"`); j > i {
			return s[:i] + s[j:]
		}
	}
	return s
}

func withoutY(s string) string {
	if i := strings.Index(s, `,"y":`); i >= 0 {
		if j := strings.Index(s, `,"oneX"`); j > i {
			return s[:i] + s[j:]
		}
	}
	return s
}
