package ui

import (
	"context"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/control"
)

// TestLivePageInBrowser opens the live view itself in Chromium, as the User
// would: its script and style run under the page's CSP, it shows the state
// and the offer, its buttons take and hand back control, and a click and
// keys on the picture reach the agent's tab at the right place.
func TestLivePageInBrowser(t *testing.T) {
	ctx := testContext(t)
	agentPage := newPage(ctx, t, "http://company.test/form")
	ctl := control.New(nil)
	l, _ := startLive(t, ctl, agentPage, nil)
	livePage := newPage(ctx, t, l.URL())

	read := func(fn string) string { return evalString(ctx, t, livePage, fn) }
	text := func(id string) func() string {
		return func() string {
			return read(`function(){ const e = document.getElementById("` + id + `"); return e.hidden ? "(hidden)" : e.textContent }`)
		}
	}
	waitText := func(id, want string) {
		t.Helper()
		poll(ctx, t, id+" to read "+want, func() bool { return text(id)() == want })
	}
	waitText("banner", "The agent is using the browser")
	if got := read(`function(){ return getComputedStyle(document.getElementById("banner")).fontWeight }`); got != "600" {
		t.Errorf("banner font weight = %q, want 600: the page's style did not apply", got)
	}
	poll(ctx, t, "a picture", func() bool {
		return read(`function(){ return String(document.getElementById("frame").naturalWidth > 0) }`) == "true"
	})

	ctl.RequestUser("I need you to confirm the name", &control.Step{Kind: "interaction", Text: "Enter your name"})
	waitText("reason", "I need you to confirm the name")
	waitText("step", "Enter your name")

	clickOn := func(p *browser.Page, sel string) {
		t.Helper()
		r, err := p.Locate(ctx, sel)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Click(ctx, r.X+r.Width/2, r.Y+r.Height/2); err != nil {
			t.Fatal(err)
		}
	}
	clickOn(livePage, "#take")
	waitText("banner", "You have control")
	if ctl.Holder() != "user" {
		t.Fatalf("holder = %q after the Take button, want user", ctl.Holder())
	}

	// Click on the picture where the agent's input is, then type, with the
	// live view in a window narrower than the agent's tab: the picture is
	// scaled down and the click must still land on the field.
	if err := browsertest.SetViewport(ctx, livePage, 700, 900); err != nil {
		t.Fatal(err)
	}
	var vp struct{ W, H float64 }
	if err := agentPage.MainFrame().Call(ctx, browser.UtilityWorld, "function(){ return {W: innerWidth, H: innerHeight} }", &vp); err != nil {
		t.Fatal(err)
	}
	target, err := agentPage.Locate(ctx, "#name")
	if err != nil {
		t.Fatal(err)
	}
	var pic browser.Rect
	poll(ctx, t, "the picture to fit the narrow window", func() bool {
		pic, err = livePage.Locate(ctx, "#frame")
		return err == nil && pic.Width > 0 && pic.Width < 700
	})
	if pic.Width >= vp.W {
		t.Fatalf("picture %vpx wide for a %vpx viewport: scaling is not exercised", pic.Width, vp.W)
	}
	x := pic.X + (target.X+target.Width/2)*pic.Width/vp.W
	y := pic.Y + (target.Y+target.Height/2)*pic.Height/vp.H
	if err := livePage.Click(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"h", "i", "Backspace", "o"} {
		if err := livePage.Press(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	poll(ctx, t, "the typed text in the agent's tab", func() bool { return agentPage.Title(ctx) == "value:ho" })

	clickOn(livePage, "#hand_back")
	waitText("banner", "The agent is using the browser")
	if st := ctl.Status(); st.Controller != "agent" || st.LastReturn == nil || st.LastReturn.How != control.HowHandedBack {
		t.Errorf("status after the Hand back button = %+v", st)
	}
	waitText("offer", "(hidden)")

	// With the agent in control, a click and a key on the picture go
	// nowhere. The Take button's message follows them on the same ordered
	// channel, so once it is handled they have been too.
	if err := livePage.Click(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	if err := livePage.Press(ctx, "z"); err != nil {
		t.Fatal(err)
	}
	clickOn(livePage, "#take")
	waitText("banner", "You have control")
	if got := agentPage.Title(ctx); got != "value:ho" {
		t.Errorf("agent tab title = %q after a key while the agent held control, want value:ho", got)
	}
}

// TestLivePageShowsTheEnd: when the agent's task ends, the live view says
// so with the agent's words, and keeps saying so when the live view then
// closes: never "Disconnected". Take control is disabled.
func TestLivePageShowsTheEnd(t *testing.T) {
	ctx := testContext(t)
	agentPage := newPage(ctx, t, "http://company.test/form")
	ctl := control.New(nil)
	l, err := NewLive(&LiveOptions{InsecureTakeByLink: true, Control: ctl, Page: func() *browser.Page { return agentPage }, Company: "Demo Airline"})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	livePage := newPage(ctx, t, l.URL())
	read := func(fn string) string { return evalString(ctx, t, livePage, fn) }
	text := func(id string) string {
		return read(`function(){ const e = document.getElementById("` + id + `"); return e.hidden ? "(hidden)" : e.textContent }`)
	}
	poll(ctx, t, "the live view to connect", func() bool { return text("banner") == "The agent is using the browser" })

	ctl.RequestUser("please check in yourself", &control.Step{Kind: "submission", Text: "Check in"})
	poll(ctx, t, "the offer", func() bool { return text("step-from") == "Demo Airline's page says" })
	if err := ctl.User().Cancel(ctx); err != nil { // declines the offer
		t.Fatal(err)
	}
	poll(ctx, t, "the decline told", func() bool { return text("story-text") == "You declined: the agent keeps control." })

	l.Finish(ctx, "You are checked in: seat 12C.")
	poll(ctx, t, "the end told", func() bool { return text("story-text") == "The agent finished: You are checked in: seat 12C." })
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := l.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "the closed connection noticed", func() bool {
		return read(`function(){ return String(document.getElementById("take").disabled) }`) == "true"
	})
	if got := text("banner"); got != "The agent finished" {
		t.Errorf("banner after the live view closed = %q, want The agent finished", got)
	}
	if got := text("status"); got != "" {
		t.Errorf("status after the live view closed = %q, want nothing", got)
	}
}

// TestLivePageReconnects: when the connection is really lost the page says
// so, disables Take control, and reconnects by itself.
func TestLivePageReconnects(t *testing.T) {
	ctx := testContext(t)
	agentPage := newPage(ctx, t, "http://company.test/form")
	ctl := control.New(nil)
	l, _ := startLive(t, ctl, agentPage, nil)
	livePage := newPage(ctx, t, l.URL())
	read := func(fn string) string { return evalString(ctx, t, livePage, fn) }
	state := func() string {
		return read(`function(){ return document.getElementById("banner").textContent + "|" + document.getElementById("take").disabled }`)
	}
	poll(ctx, t, "the live view to connect", func() bool { return state() == "The agent is using the browser|false" })
	// Watch from inside the page, so the short disconnected state is seen
	// even if it reconnects quickly.
	read(`function(){ window.seen = []; new MutationObserver(() => window.seen.push(document.getElementById("banner").textContent + "|" + document.getElementById("take").disabled)).observe(document.getElementById("banner"), {childList: true, characterData: true, subtree: true}); return "" }`)
	l.closeClients()
	poll(ctx, t, "the page to reconnect", func() bool {
		return read(`function(){ return String(window.seen.includes("Disconnected|true")) }`) == "true" && state() == "The agent is using the browser|false"
	})
	if l.Clients() != 1 {
		t.Errorf("clients after the reconnect = %d, want 1", l.Clients())
	}
}
