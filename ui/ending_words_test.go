package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/presence"
)

// shownText is what the User reads in the element id of the live view:
// "(none)" when it is not there, "(hidden)" when it is not shown.
func shownText(ctx context.Context, t *testing.T, p *browser.Page, id string) string {
	t.Helper()
	var s string
	if err := p.MainFrame().Call(ctx, browser.UtilityWorld, `function(){ const e = document.getElementById("`+id+`");
		return !e ? "(none)" : e.hidden || e.offsetParent === null ? "(hidden)" : e.textContent }`, &s); err != nil {
		return "(loading)" // the page is being replaced (a link's page by the live view)
	}
	return s
}

// notAFailure fails t when the live view in p reads as a failure: a red
// banner, the words of a lost connection or of a generic ended login.
func notAFailure(ctx context.Context, t *testing.T, p *browser.Page, state string) {
	t.Helper()
	if cls := evalString(ctx, t, p, `function(){ return document.getElementById("banner").className }`); strings.Contains(cls, "lost") {
		t.Errorf("%s: the banner is shown as a failure (class %q)", state, cls)
	}
	all := evalString(ctx, t, p, `function(){ return document.body.innerText }`)
	for _, bad := range []string{"This live view has ended", "Disconnected", "reconnecting", "not valid"} {
		if strings.Contains(all, bad) {
			t.Errorf("%s: the view shows %q:\n%s", state, bad, all)
		}
	}
}

// TestExpiredLinkReadsAsItsOwn: on a phone, the User opens an offer's
// link but does not take control before it runs out. The view says the
// link's time ran out and to ask the agent for a new one: not red, not
// "This live view has ended", and the offer card is gone.
func TestExpiredLinkReadsAsItsOwn(t *testing.T) {
	ctx := testContext(t)
	agentPage := newPage(ctx, t, "http://company.test/form")
	ctl := controlOn(agentPage)
	clock := &testClock{now: time.Now()}
	store := presence.NewStore(t.TempDir() + "/" + presence.FileName)
	l, _ := startLiveWith(t, ctl, agentPage, nil, &LiveOptions{Passkeys: store, Now: clock.Now, LinkTTL: 5 * time.Minute})
	offer := ctl.RequestUser("check in yourself", &control.Step{Kind: "submission", Text: "Check in"})
	link, err := l.MintLink(offer.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	live := chromium.NewPage(t)
	if err := live.Context().EmulateDevice(ctx, &phone); err != nil {
		t.Fatal(err)
	}
	if _, err := live.Navigate(ctx, link.URL); err != nil {
		t.Fatal(err)
	}
	browsertest.TapOn(ctx, t, live, "#go")
	// No device is paired: the card waits for one, and the link's time
	// runs out.
	poll(ctx, t, "the offer card", func() bool { return strings.Contains(shownText(ctx, t, live, "presence-text"), "No device is paired") })
	clock.Add(6 * time.Minute)
	poll(ctx, t, "the link's end", func() bool { return shownText(ctx, t, live, "banner") == "This link's time ran out" })
	if got := shownText(ctx, t, live, "gone"); !strings.Contains(got, "ask it for a new link") {
		t.Errorf("the expired link's note = %q, want it to say to ask the agent for a new link", got)
	}
	for _, id := range []string{"offer", "card", "proof"} {
		if got := shownText(ctx, t, live, id); got != "(hidden)" {
			t.Errorf("the offer card's %s is still shown after the link ran out: %q", id, got)
		}
	}
	notAFailure(ctx, t, live, "expired link")
	screenshot(ctx, t, live, "phone-link-expired")
}

// TestRevokedDeviceReadsAsItsOwn: the User's device is unpaired (`pair
// --revoke`) while its view shows their turn. The view stops showing the
// page and says why, and how to see it again: not an error.
func TestRevokedDeviceReadsAsItsOwn(t *testing.T) {
	ctx := testContext(t)
	agentPage := newPage(ctx, t, "http://company.test/checkin")
	ctl := controlOn(agentPage)
	l, store := startLivePasskeys(t, ctl, agentPage, nil)
	dev := pairHere(ctx, t, l)
	offer := ctl.RequestUser("check in yourself", &control.Step{Kind: "submission", Text: "Check in"})
	link, err := l.MintLink(offer.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	openLinkAndTake(ctx, t, dev.Page, link.URL)
	poll(ctx, t, "the take", func() bool { return ctl.Holder() == "user" })
	poll(ctx, t, "the picture after the proof", func() bool {
		return evalString(ctx, t, dev.Page, `function(){ return String(document.getElementById("frame").naturalWidth > 0) }`) == "true"
	})
	if err := store.Revoke(dev.ID); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "the view's words for an unpaired device", func() bool {
		return strings.Contains(shownText(ctx, t, dev.Page, "presence-text"), "This device was unpaired")
	})
	if got := shownText(ctx, t, dev.Page, "banner"); got != "This device was unpaired" {
		t.Errorf("the unpaired device's banner = %q", got)
	}
	if got := shownText(ctx, t, dev.Page, "screen"); got != "(hidden)" {
		t.Errorf("the unpaired device's view still shows the page")
	}
	notAFailure(ctx, t, dev.Page, "revoked device")
	screenshot(ctx, t, dev.Page, "desktop-device-unpaired")
}

// TestCrashedPageReadsAsItsOwn: during the User's turn on a phone, the
// agent's tab crashes. The view says the page crashed and how to go on,
// not a lost connection; reloading from the live view brings the page
// back.
func TestCrashedPageReadsAsItsOwn(t *testing.T) {
	ctx := testContext(t)
	agentPage := newPage(ctx, t, "http://company.test/form")
	ctl := controlOn(agentPage)
	l, _ := startLive(t, ctl, agentPage, nil)
	ctl.RequestUser("check in yourself", nil)
	live := chromium.NewPage(t)
	if err := live.Context().EmulateDevice(ctx, &phone); err != nil {
		t.Fatal(err)
	}
	if _, err := live.Navigate(ctx, l.URL()); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "the offer and a picture", func() bool {
		return shownText(ctx, t, live, "banner") == "The agent asks you to take control" &&
			evalString(ctx, t, live, `function(){ return String(document.getElementById("frame").naturalWidth > 0) }`) == "true"
	})
	browsertest.TapOn(ctx, t, live, "#take")
	poll(ctx, t, "the User's turn", func() bool { return shownText(ctx, t, live, "banner") == "You have control" })
	_ = agentPage.Goto(ctx, "chrome://crash") // the browser's own way to crash a renderer
	poll(ctx, t, "the crash's words", func() bool { return shownText(ctx, t, live, "banner") == "The page crashed" })
	if got := shownText(ctx, t, live, "gone"); !strings.Contains(got, "Reload it") {
		t.Errorf("the crash's note = %q, want it to say how to go on", got)
	}
	notAFailure(ctx, t, live, "crashed page")
	screenshot(ctx, t, live, "phone-page-crashed")

	browsertest.TapOn(ctx, t, live, "#more")
	browsertest.TapOn(ctx, t, live, "#reload")
	poll(ctx, t, "the page back after a reload", func() bool { return shownText(ctx, t, live, "banner") == "You have control" })
	if got := shownText(ctx, t, live, "gone"); got != "(hidden)" {
		t.Errorf("the crash's note stays after the page came back: %q", got)
	}
}
