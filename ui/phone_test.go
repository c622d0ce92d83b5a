package ui

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/control"
)

// phone is the User's screen in the phone tests: a 390x844 phone at
// device pixel ratio 3 with a touch screen.
var phone = browser.Device{Width: 390, Height: 844, Scale: 3, Mobile: true, Touch: true}

// livePhone opens the live view in a tab emulating the phone.
func livePhone(ctx context.Context, t *testing.T, l *Live) *browser.Page {
	t.Helper()
	p := chromium.NewPage(t)
	if err := p.Context().EmulateDevice(ctx, &phone); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Navigate(ctx, l.URL()); err != nil {
		t.Fatal(err)
	}
	return p
}

// controlOn is a Control whose pages follow the User's screen, as the
// supervisor's hand-over shows them (without its frames and window steps).
func controlOn(p *browser.Page) *control.Control {
	return control.New(&control.Options{Handover: screenOf{p.Context()}})
}

// screenOf is a hand-over that only shows the pages on the User's screen.
type screenOf struct{ c *browser.Context }

func (s screenOf) Take(ctx context.Context, d *control.Device) (*control.Device, error) {
	if d == nil {
		return nil, nil
	}
	if err := s.Resize(ctx, d); err != nil {
		return nil, s.Resize(ctx, nil)
	}
	return d, nil
}

func (s screenOf) Return(ctx context.Context) error { return s.Resize(ctx, nil) }

func (s screenOf) Resize(ctx context.Context, d *control.Device) error {
	if d == nil {
		return s.c.EmulateDevice(ctx, nil)
	}
	return s.c.EmulateDevice(ctx, &browser.Device{Width: d.Width, Height: d.Height, Scale: d.Scale, Mobile: d.Mobile, Touch: d.Touch})
}

func evalString(ctx context.Context, t *testing.T, p *browser.Page, fn string) string {
	t.Helper()
	var s string
	if err := p.MainFrame().Call(ctx, browser.UtilityWorld, fn, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func innerWidth(ctx context.Context, t *testing.T, p *browser.Page) int {
	t.Helper()
	n, err := strconv.Atoi(evalString(ctx, t, p, "function(){ return String(innerWidth) }"))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// screenshot saves a picture of p to the test's artifact directory, for a
// person to look at.
func screenshot(ctx context.Context, t *testing.T, p *browser.Page, name string) {
	t.Helper()
	shot, err := p.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.ArtifactDir(), name+".png")
	if err := os.WriteFile(path, shot.PNG, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// TestPhoneTurn is the User's turn from a phone: the live view fits the
// phone, a tap takes control, the agent's page lays out at the phone's
// width, a tap on its field opens the live view's own editable element,
// what the phone's keyboard types (keys, a Backspace, an autocorrect
// replacement) reaches the field, a tap on the button clicks it, and hand
// back by tap brings the agent's desktop width back.
func TestPhoneTurn(t *testing.T) {
	ctx := testContext(t)
	agentPage := newPage(ctx, t, "http://company.test/form")
	desktopWidth := innerWidth(ctx, t, agentPage)
	ctl := controlOn(agentPage)
	l, _ := startLive(t, ctl, agentPage, nil)
	live := livePhone(ctx, t, l)
	text := func(id string) string {
		return evalString(ctx, t, live, `function(){ const e = document.getElementById("`+id+`"); return e.hidden ? "(hidden)" : e.textContent }`)
	}
	poll(ctx, t, "the live view to connect", func() bool { return text("banner") == "The agent is using the browser" })
	poll(ctx, t, "a picture", func() bool {
		return evalString(ctx, t, live, `function(){ return String(document.getElementById("frame").naturalWidth > 0) }`) == "true"
	})
	if got := evalString(ctx, t, live, "function(){ return document.documentElement.scrollWidth + ' ' + innerWidth }"); got != "390 390" {
		t.Errorf("live view scroll width and window width = %s, want 390 390 (no horizontal scroll)", got)
	}
	screenshot(ctx, t, live, "phone-agent")

	browsertest.TapOn(ctx, t, live, "#take")
	poll(ctx, t, "the banner to say the User has control", func() bool { return text("banner") == "You have control" })
	poll(ctx, t, "the agent's page to lay out at the phone's width", func() bool {
		w := innerWidth(ctx, t, agentPage)
		return w > 300 && w <= 390
	})
	if st := ctl.Status(); st.Device == nil || !st.Device.Touch || st.Device.Scale != 3 {
		t.Errorf("device while the User holds control = %+v, want the phone's", st.Device)
	}

	// Tap the field on the picture: the agent's page focuses it, the live
	// view focuses its own editable element (the phone's keyboard opens),
	// and it does so inside the tap's touchend, the user gesture iOS
	// needs to open its keyboard (not later, when the runtime answers).
	evalString(ctx, t, live, `function(){
		globalThis.order = []; let inTouch = false;
		addEventListener("touchend", () => { inTouch = true; order.push("touchend"); }, true);
		addEventListener("touchend", () => { inTouch = false; order.push("touchend done"); });
		document.getElementById("keys").addEventListener("focus", () => order.push(inTouch ? "focus in touchend" : "focus later"));
		return "" }`)
	browsertest.TapThrough(ctx, t, live, "#frame", agentPage, "#name")
	poll(ctx, t, "an editable element focused in the live view", func() bool {
		return evalString(ctx, t, live, "function(){ const e = document.activeElement; return e ? e.id + ':' + (e.tagName === 'TEXTAREA') : '' }") == "keys:true"
	})
	if got := evalString(ctx, t, live, `function(){ return order.join(", ") }`); got != "touchend, focus in touchend, touchend done" {
		t.Errorf("events of the tap on the field: %s, want the keyboard element focused inside the touchend", got)
	}
	keysOnField(ctx, t, live)
	screenshot(ctx, t, live, "phone-user-typing")

	if err := live.InsertText(ctx, "hello"); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "the typed text in the agent's field", func() bool { return agentPage.Title(ctx) == "value:hello" })
	if err := live.Press(ctx, "Backspace"); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "the Backspace in the agent's field", func() bool { return agentPage.Title(ctx) == "value:hell" })
	// An autocorrect replacement: the keyboard rewrites the word in place.
	evalString(ctx, t, live, `function(){ const k = document.getElementById("keys"); k.value = "\u200bhelp";
		k.dispatchEvent(new InputEvent("input", {inputType: "insertReplacementText", data: "help"})); return "" }`)
	poll(ctx, t, "the replaced word in the agent's field", func() bool { return agentPage.Title(ctx) == "value:help" })

	browsertest.TapThrough(ctx, t, live, "#frame", agentPage, "#go")
	poll(ctx, t, "the tap on the button to click it", func() bool { return agentPage.Title(ctx) == "clicked:help" })
	poll(ctx, t, "the live view's keyboard to close off a button", func() bool {
		return evalString(ctx, t, live, "function(){ return document.activeElement ? document.activeElement.id : '' }") != "keys"
	})

	browsertest.TapOn(ctx, t, live, "#hand_back")
	poll(ctx, t, "the agent to hold control", func() bool { return ctl.Holder() == "agent" })
	// The agent's viewport came back before the return was published.
	if w := innerWidth(ctx, t, agentPage); w != desktopWidth {
		t.Errorf("agent's page width after hand back = %d, want %d", w, desktopWidth)
	}
	if st := ctl.Status(); st.Controller != "agent" || st.Epoch != 1 || !st.MustReobserve || st.Device != nil {
		t.Errorf("status after hand back by tap = %+v, want the agent, a new epoch, must reobserve, no device", st)
	}
	poll(ctx, t, "the story after hand back", func() bool { return text("banner") == "The agent is using the browser" })
}

// TestPhoneTapOnZoomedOutPage is a tap from a phone on a page the phone
// shows zoomed out (a desktop-only page, 980 px wide on a 390-px screen):
// the tap lands on the field it aims at, the live view's keyboard element
// lies over that field, and what is typed reaches it. The picture's CSS
// size is the page's visual viewport, not the phone's screen.
func TestPhoneTapOnZoomedOutPage(t *testing.T) {
	ctx := testContext(t)
	agentPage := newPage(ctx, t, "http://company.test/desktop")
	ctl := controlOn(agentPage)
	l, _ := startLive(t, ctl, agentPage, nil)
	live := livePhone(ctx, t, l)
	poll(ctx, t, "the live view to connect", func() bool {
		return evalString(ctx, t, live, `function(){ return document.getElementById("banner").textContent }`) == "The agent is using the browser"
	})
	browsertest.TapOn(ctx, t, live, "#take")
	poll(ctx, t, "the banner to say the User has control", func() bool {
		return evalString(ctx, t, live, `function(){ return document.getElementById("banner").textContent }`) == "You have control"
	})
	poll(ctx, t, "the page laid out 980 wide and zoomed out to fit the phone", func() bool {
		return evalString(ctx, t, agentPage, `function(){ return String(innerWidth === 980 && visualViewport.scale < 0.5) }`) == "true"
	})

	browsertest.TapThrough(ctx, t, live, "#frame", agentPage, "#far")
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	poll(tctx, t, "the tap to focus the field it aimed at", func() bool {
		return evalString(ctx, t, agentPage, "function(){ const e = document.activeElement; return e ? e.id : '' }") == "far"
	})
	keysOnField(ctx, t, live)
	// The keyboard element lies over the field as the picture shows it.
	var field, frame, keys struct{ X, Y, Width, Height, VW float64 }
	box := `function(sel){ const r = document.querySelector(sel).getBoundingClientRect(); return {X: r.x, Y: r.y, Width: r.width, Height: r.height, VW: visualViewport.width} }`
	for _, b := range []struct {
		p   *browser.Page
		sel string
		to  any
	}{{agentPage, "#far", &field}, {live, "#frame", &frame}, {live, "#keys", &keys}} {
		if err := b.p.MainFrame().Call(ctx, browser.UtilityWorld, box, b.to, b.sel); err != nil {
			t.Fatal(err)
		}
	}
	k := frame.Width / field.VW
	if want := frame.X + field.X*k; math.Abs(keys.X-want) > 3 || math.Abs(keys.Width-field.Width*k) > 3 {
		t.Errorf("the keyboard element spans x %.1f+%.1f, want the field's %.1f+%.1f in the picture", keys.X, keys.Width, want, field.Width*k)
	}

	if err := live.InsertText(ctx, "hi"); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "the typed text in the field", func() bool { return agentPage.Title(ctx) == "value:hi" })
}
