package ui

import (
	"context"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/control"
)

// rect is a box in CSS pixels.
type rect struct{ X, Y, Width, Height float64 }

func (r *rect) bottom() float64 { return r.Y + r.Height }

// liveLook is what the User sees of the live view, measured in one read.
type liveLook struct {
	Inner, InnerW, ScrollH, ScrollW, ScrollY float64
	Frame, Screen, Bar, Take, HandBack, Step *rect
	NaturalW, NaturalH                       float64
	StepOutline                              float64
	StepBackground                           string
	Banner                                   string
	AddressFits                              bool    // the address field shows the whole address
	BannerCut                                bool    // the state's words are cut (an ellipsis)
	StoryScale                               float64 // the story's first word drawn over its size at 15 px, 0: hidden
}

const lookJS = `function() {
	const shown = (e) => !!e && !e.hidden && getComputedStyle(e).display !== "none" && e.getClientRects().length > 0;
	const r = (id) => { const e = document.getElementById(id); if (!shown(e)) return null;
		const b = e.getBoundingClientRect(); return {X: b.x, Y: b.y, Width: b.width, Height: b.height}; };
	const img = document.getElementById("frame"), sb = document.getElementById("step-box"), cs = getComputedStyle(sb);
	return {Inner: innerHeight, InnerW: innerWidth, ScrollH: document.documentElement.scrollHeight,
		ScrollW: document.documentElement.scrollWidth, ScrollY: scrollY + document.body.scrollTop,
		Frame: r("frame"), Screen: r("screen"), Bar: r("bar"), Take: r("take"), HandBack: r("hand_back"), Step: r("step-box"),
		NaturalW: img.naturalWidth, NaturalH: img.naturalHeight,
		StepOutline: parseFloat(cs.outlineWidth) || 0, StepBackground: cs.backgroundColor,
		Banner: document.getElementById("banner").textContent,
		BannerCut: (b => b.scrollWidth > b.clientWidth + 1 || b.scrollHeight > b.clientHeight + 1)(document.getElementById("banner")),
		AddressFits: (a => shown(a) && a.value.length > 0 && a.scrollWidth <= a.clientWidth)(document.getElementById("address")),
		StoryScale: (e => {
			if (!shown(e) || !e.firstChild) return 0;
			const word = e.firstChild.textContent.split(" ")[0], range = document.createRange();
			range.setStart(e.firstChild, 0); range.setEnd(e.firstChild, word.length);
			const g = document.createElement("canvas").getContext("2d"), cs = getComputedStyle(e);
			g.font = cs.fontWeight + " 15px " + cs.fontFamily;
			return range.getBoundingClientRect().width / g.measureText(word).width;
		})(document.getElementById("story-text"))};
}`

func look(ctx context.Context, t *testing.T, p *browser.Page) liveLook {
	t.Helper()
	var l liveLook
	if err := p.MainFrame().Call(ctx, browser.UtilityWorld, lookJS, &l); err != nil {
		t.Fatal(err)
	}
	return l
}

// agentView is where sel is on the agent's page, in the visual viewport
// the picture shows, and that viewport's size.
type agentView struct {
	X, Y, Width, Height float64
	VW, VH              float64
}

func agentBox(ctx context.Context, t *testing.T, p *browser.Page, sel string) agentView {
	t.Helper()
	var a agentView
	if err := p.MainFrame().Call(ctx, browser.UtilityWorld, `function(sel) {
		const v = visualViewport, r = document.querySelector(sel).getBoundingClientRect();
		return {X: r.x - v.offsetLeft, Y: r.y - v.offsetTop, Width: r.width, Height: r.height, VW: v.width, VH: v.height};
	}`, &a, sel); err != nil {
		t.Fatal(err)
	}
	return a
}

// onPicture is where a box of the agent's page is on the live view's picture.
func onPicture(frame *rect, a agentView) rect {
	k := frame.Width / a.VW
	return rect{frame.X + a.X*k, frame.Y + a.Y*k, a.Width * k, a.Height * k}
}

func near(a, b rect, slack float64) bool {
	return math.Abs(a.X-b.X) <= slack && math.Abs(a.Y-b.Y) <= slack &&
		math.Abs(a.Width-b.Width) <= slack && math.Abs(a.Height-b.Height) <= slack
}

// fits fails t when the live view itself scrolls, either way.
func fits(t *testing.T, state string, l liveLook) {
	t.Helper()
	if l.ScrollH > l.Inner || l.ScrollW > l.InnerW || l.ScrollY != 0 {
		t.Errorf("%s: the live view scrolls: scroll size %vx%v (at %v) in a %vx%v window", state, l.ScrollW, l.ScrollH, l.ScrollY, l.InnerW, l.Inner)
	}
	if l.BannerCut {
		t.Errorf("%s: the state's words %q are cut in a %v px wide window", state, l.Banner, l.InnerW)
	}
}

// legible fails t when the live view's own words are not drawn at the
// size its style gives them (15 px): a phone's browser may enlarge text
// it takes for a desktop page's (text autosizing).
func legible(t *testing.T, state string, l liveLook) {
	t.Helper()
	if l.StoryScale != 0 && math.Abs(l.StoryScale-1) > 0.05 {
		t.Errorf("%s: the story's words are drawn %.2f times the size of their style, want 1", state, l.StoryScale)
	}
}

// TestLiveViewScreens goes through the User's turn on a phone (390x844 at
// 3x), a small phone (360x640 at 2x), a phone in landscape (844x390 at
// 3x) and a desktop (1280x900): the offer, the take, typing, a second
// viewer, the hand back and the end. At every step the live view itself
// never scrolls; the numbers a User notices are checked: the step is
// outlined (never filled) where it is on the picture, before the take at
// a readable size on a phone with Take control within the thumb's reach,
// during the turn where it is now (the page scrolled); during the turn
// the page has at least three quarters of a phone's height, its frames
// drawn at least 1:1. Screenshots of every state
// go to the test's artifacts (go test -artifacts) for a person to look at.
func TestLiveViewScreens(t *testing.T) {
	for _, size := range []struct {
		name string
		dev  browser.Device
	}{
		{"phone", phone},
		{"small", browser.Device{Width: 360, Height: 640, Scale: 2, Mobile: true, Touch: true}},
		{"landscape", browser.Device{Width: 844, Height: 390, Scale: 3, Mobile: true, Touch: true}},
		{"desktop", browser.Device{Width: 1280, Height: 900, Scale: 1}},
	} {
		t.Run(size.name, func(t *testing.T) { screensAt(t, size.name, size.dev) })
	}
}

func screensAt(t *testing.T, name string, dev browser.Device) {
	ctx, cancel := context.WithTimeout(t.Context(), 150*time.Second)
	defer cancel()
	const url = "http://company.test/checkin?booking=bkg_4Rt9&passenger=Ada%20Lovelace&flight=PA1234&from=LIS&to=OSL"
	agentPage := newPage(ctx, t, url)
	ctl := controlOn(agentPage)
	l, err := NewLive(&LiveOptions{InsecureTakeByLink: true, Control: ctl, Page: func() *browser.Page { return agentPage }, Company: "Demo Airline"})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = l.Shutdown(sctx)
	})
	touch := dev.Touch
	open := func() *browser.Page {
		p := chromium.NewPage(t)
		if err := p.Context().EmulateDevice(ctx, &dev); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Navigate(ctx, l.URL()); err != nil {
			t.Fatal(err)
		}
		return p
	}
	press := func(p *browser.Page, sel string) {
		t.Helper()
		if touch {
			browsertest.TapOn(ctx, t, p, sel)
			return
		}
		r, err := p.Locate(ctx, sel)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Click(ctx, r.X+r.Width/2, r.Y+r.Height/2); err != nil {
			t.Fatal(err)
		}
	}
	shot := func(p *browser.Page, state string) { screenshot(ctx, t, p, name+"-"+state) }

	// 1. The offer: the step outlined where it is, readable on a phone.
	goBox := agentBox(ctx, t, agentPage, "#go")
	ctl.RequestUser("airline.test asks you to check in yourself: take control, check the name, press Check in, then hand back.",
		&control.Step{Kind: "submission", Text: "Check in", Box: &control.Box{X: goBox.X, Y: goBox.Y, Width: goBox.Width, Height: goBox.Height}})
	live := open()
	var lk liveLook
	poll(ctx, t, "the offer, a picture and its outline", func() bool {
		lk = look(ctx, t, live)
		return lk.Banner == "The agent asks you to take control" && lk.NaturalW > 0 && lk.Frame != nil && lk.Step != nil &&
			near(*lk.Step, onPicture(lk.Frame, goBox), 2)
	})
	fits(t, "offer", lk)
	if lk.StepOutline < 2 || lk.StepBackground != "rgba(0, 0, 0, 0)" {
		t.Errorf("offer: the step is drawn with a %vpx outline on %s, want an outline of 2px or more and nothing over the step", lk.StepOutline, lk.StepBackground)
	}
	if s := lk.Screen; lk.Step.X < s.X || lk.Step.Y < s.Y || lk.Step.X+lk.Step.Width > s.X+s.Width || lk.Step.bottom() > s.bottom() {
		t.Errorf("offer: the step %+v is not in the picture's area %+v on screen", *lk.Step, *s)
	}
	// Where the page's whole width is legible (a phone in landscape, a
	// desktop), none of it is cut at the side.
	if a := agentBox(ctx, t, agentPage, "#go"); lk.Screen.Width/a.VW >= 0.6 && lk.Frame.Width > lk.Screen.Width+1 {
		t.Errorf("offer: the page's picture is %v px wide in a %v px area: its right edge is cut", lk.Frame.Width, lk.Screen.Width)
	}
	if touch {
		if k := lk.Step.Width / goBox.Width; k < 0.6 {
			t.Errorf("offer: the step is shown at %.2f of its size, want 0.6 or more (readable)", k)
		}
		if lk.Take == nil || lk.Take.Y < lk.Inner/2 || lk.Take.bottom() > lk.Inner {
			t.Errorf("offer: Take control at %+v in a window %v high, want it in the lower half (the thumb's reach)", lk.Take, lk.Inner)
		}
	}
	if !touch && !lk.AddressFits {
		t.Errorf("offer: the address field does not show the whole %d-character address at %dx%d", len(url), dev.Width, dev.Height)
	}
	shot(live, "1-offer")

	// 2. The take: one slim bar, the page gets the screen, sharp.
	press(live, "#take")
	poll(ctx, t, "the User's turn", func() bool { return look(ctx, t, live).Banner == "You have control" })
	if touch {
		poll(ctx, t, "the agent's page at the phone's width", func() bool {
			return int(agentBox(ctx, t, agentPage, "#go").VW) == dev.Width
		})
		// A phone in landscape shows the step below the fold: the User
		// scrolls to it.
		evalString(ctx, t, agentPage, `function(){ document.getElementById("go").scrollIntoView({block: "center"}); return "" }`)
	}
	poll(ctx, t, "the step outlined where it is now, on a whole picture", func() bool {
		lk = look(ctx, t, live)
		a := agentBox(ctx, t, agentPage, "#go")
		ratio := lk.NaturalH * a.VW / (lk.NaturalW * a.VH)
		return lk.Frame != nil && lk.Step != nil && math.Abs(ratio-1) < 0.03 && near(*lk.Step, onPicture(lk.Frame, a), 2)
	})
	fits(t, "taken", lk)
	if touch {
		if share := lk.Frame.Height / lk.Inner; share < 0.75 || lk.Frame.bottom() > lk.Inner+1 {
			t.Errorf("taken: the page's picture is %v of %v px high (%.0f%%) ending at %v, want 75%% or more, on screen", lk.Frame.Height, lk.Inner, 100*share, lk.Frame.bottom())
		}
		// The picture comes at the phone's ratio, up to
		// browser.MaxFrameScale (docs/live-view.md), and is drawn at
		// its CSS size: the page is laid out at the picture's size.
		want := min(dev.Scale, browser.MaxFrameScale)
		if k := lk.NaturalW / lk.Frame.Width; k < want-0.02 {
			t.Errorf("taken: frames %vx%v shown at %vx%v CSS px (%.2fx), want %vx", lk.NaturalW, lk.NaturalH, lk.Frame.Width, lk.Frame.Height, k, want)
		}
		t.Logf("taken: picture %vx%v CSS px, frames %vx%v (%.2fx, the phone has %vx); page %.0f%% of the height",
			lk.Frame.Width, lk.Frame.Height, lk.NaturalW, lk.NaturalH, lk.NaturalW/lk.Frame.Width, dev.Scale, 100*lk.Frame.Height/lk.Inner)
	}
	if lk.HandBack == nil || lk.HandBack.Y < 0 || lk.HandBack.bottom() > lk.Bar.bottom()+1 {
		t.Errorf("taken: Hand back at %+v, want it in the bar %+v", lk.HandBack, lk.Bar)
	}
	shot(live, "2-taken")

	// The page scrolls: the outline follows.
	evalString(ctx, t, agentPage, `function(){ scrollBy(0, 60); return "" }`)
	poll(ctx, t, "the outline to follow the page's scroll", func() bool {
		lk = look(ctx, t, live)
		return lk.Step != nil && near(*lk.Step, onPicture(lk.Frame, agentBox(ctx, t, agentPage, "#go")), 2)
	})

	// 3. Typing into the page's field.
	if touch {
		browsertest.TapThrough(ctx, t, live, "#frame", agentPage, "#name")
		keysOnField(ctx, t, live)
		if err := live.InsertText(ctx, "Ada"); err != nil {
			t.Fatal(err)
		}
	} else {
		a := agentBox(ctx, t, agentPage, "#name")
		lk = look(ctx, t, live)
		at := onPicture(lk.Frame, a)
		if err := live.Click(ctx, at.X+at.Width/2, at.Y+at.Height/2); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"A", "d", "a"} {
			if err := live.Press(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
	}
	poll(ctx, t, "the typed name in the agent's field", func() bool { return agentPage.Title(ctx) == "value:Ada" })
	// The page has the text before the picture does: the shot waits for a
	// picture that shows it.
	typedW, err := strconv.ParseFloat(evalString(ctx, t, agentPage, `function(){ const e = document.getElementById("name"), cs = getComputedStyle(e);
		const g = document.createElement("canvas").getContext("2d"); g.font = cs.fontSize + " " + cs.fontFamily;
		return String(g.measureText(e.value).width) }`), 64)
	if err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "a picture with the whole typed name in the field", func() bool {
		return textOnPicture(ctx, t, live, agentBox(ctx, t, agentPage, "#name")) >= 0.8*typedW
	})
	lk = look(ctx, t, live)
	fits(t, "typing", lk)
	if lk.HandBack == nil || lk.HandBack.Y < 0 {
		t.Errorf("typing: Hand back at %+v, want it on screen", lk.HandBack)
	}
	shot(live, "3-typing")

	// A second viewer sees who holds control, and the step.
	second := open()
	poll(ctx, t, "the second viewer's view of the turn", func() bool {
		lk = look(ctx, t, second)
		return lk.Banner == "You have control on another screen" && lk.NaturalW > 0 && lk.Step != nil &&
			near(*lk.Step, onPicture(lk.Frame, agentBox(ctx, t, agentPage, "#go")), 2)
	})
	fits(t, "second viewer", lk)
	shot(second, "4-second-viewer")

	// 4. The hand back.
	press(live, "#hand_back")
	poll(ctx, t, "the agent's turn again", func() bool { return look(ctx, t, live).Banner == "The agent is using the browser" })
	lk = look(ctx, t, live)
	fits(t, "handed back", lk)
	legible(t, "handed back", lk)
	if lk.Step != nil {
		t.Errorf("handed back: the step is still outlined at %+v", *lk.Step)
	}
	shot(live, "5-handed-back")

	// 5. The end.
	l.Finish(ctx, "You are checked in: seat 14C. The boarding pass is in your email.")
	poll(ctx, t, "the end", func() bool { return look(ctx, t, live).Banner == "The agent finished" })
	lk = look(ctx, t, live)
	fits(t, "ended", lk)
	legible(t, "ended", lk)
	shot(live, "6-ended")
}

// textOnPicture is how wide (CSS pixels of the agent's page) the dark
// marks are, taken together, inside the field a of the agent's page on the
// live view's current picture: typed text spans about its width, an
// empty field's caret one pixel.
func textOnPicture(ctx context.Context, t *testing.T, live *browser.Page, a agentView) float64 {
	t.Helper()
	var w float64
	if err := live.MainFrame().Call(ctx, browser.UtilityWorld, `function(a) {
		const img = document.getElementById("frame");
		if (!img.complete || !img.naturalWidth) return 0;
		const k = img.naturalWidth / a.VW, inset = 4;
		const x = Math.round((a.X + inset) * k), y = Math.round((a.Y + inset) * k);
		const w = Math.round((a.Width - 2 * inset) * k), h = Math.round((a.Height - 2 * inset) * k);
		if (w <= 0 || h <= 0) return 0;
		const c = document.createElement("canvas");
		c.width = img.naturalWidth; c.height = img.naturalHeight;
		const g = c.getContext("2d");
		g.drawImage(img, 0, 0);
		const d = g.getImageData(x, y, w, h).data;
		let cols = 0;
		for (let i = 0; i < w; i++) {
			for (let j = 0; j < h; j++) {
				const o = 4 * (j * w + i);
				if (0.3 * d[o] + 0.59 * d[o + 1] + 0.11 * d[o + 2] < 110) { cols++; break; }
			}
		}
		return cols / k;
	}`, &w, a); err != nil {
		t.Fatal(err)
	}
	return w
}

// keysOnField waits until the live view's keyboard element has the focus
// and sits over the field the tap focused (the runtime's answer to the
// tap), so what is typed next goes to that field.
func keysOnField(ctx context.Context, t *testing.T, live *browser.Page) {
	t.Helper()
	poll(ctx, t, "the live view's keyboard element focused over the field", func() bool {
		return evalString(ctx, t, live, `function(){ const k = document.getElementById("keys");
			return String(document.activeElement === k && k.getBoundingClientRect().width > 2) }`) == "true"
	})
}
