package ui

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/presence/presencetest"
)

// TestPresenceScreens shows the offer card and the ceremony's states at a
// phone's size and a desktop's, and checks what each shows: without a
// paired device, the card says how to pair one; with one, the card and its
// button and nothing of the page; a device that cannot verify the User,
// the refusal in words; after the proof, the page and the User's turn.
// The screenshots go to the test's artifact directory (docs/screens has
// copies: presence-*.png).
func TestPresenceScreens(t *testing.T) {
	for _, size := range []struct {
		name string
		dev  browser.Device
	}{
		{"phone", browser.Device{Width: 390, Height: 844, Scale: 3, Mobile: true, Touch: true}},
		{"desktop", browser.Device{Width: 1280, Height: 900, Scale: 1}},
	} {
		t.Run(size.name, func(t *testing.T) { presenceScreensAt(t, size.name, size.dev) })
	}
}

func presenceScreensAt(t *testing.T, name string, dev browser.Device) {
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	agentPage := newPage(ctx, t, "http://company.test/checkin")
	l, _ := startLivePasskeys(t, controlOn(agentPage), agentPage, func(l *Live) { l.company = "Demo Airline" })
	l.ctl.RequestUser("airline.test asks you to submit this form yourself: take control, complete it, then hand back.",
		&control.Step{Kind: "submission", Text: "Check in"})
	p := chromium.NewPage(t)
	if err := p.Context().EmulateDevice(ctx, &dev); err != nil {
		t.Fatal(err)
	}
	shot := func(state string) { screenshot(ctx, t, p, "presence-"+name+"-"+state) }
	read := func(js string) string { return evalString(ctx, t, p, "function(){ return String("+js+") }") }
	text := func(id string) string { return read(`document.getElementById("` + id + `").textContent`) }
	press := func(sel string) {
		t.Helper()
		if dev.Touch {
			browsertest.TapOn(ctx, t, p, sel)
		} else if err := presencetest.Click(ctx, p, sel); err != nil {
			t.Fatal(err)
		}
	}
	noPicture := func(state string) {
		t.Helper()
		if read(`document.getElementById("frame").naturalWidth`) != "0" || read(`getComputedStyle(document.getElementById("screen")).display`) != "none" {
			t.Errorf("%s: the card shows a picture of the page", state)
		}
	}

	if _, err := p.Navigate(ctx, l.URL()); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "the card without a device", func() bool { return strings.Contains(text("presence-text"), "No device is paired") })
	noPicture("no device")
	shot("1-no-device")

	pl, err := l.MintPairing()
	if err != nil {
		t.Fatal(err)
	}
	d, err := presencetest.Pair(ctx, p, pl.URL)
	if err != nil {
		t.Fatal(err)
	}
	shot("2-paired")

	if _, err := p.Navigate(ctx, l.URL()); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "the card", func() bool { return strings.Contains(text("presence-text"), "confirm it's you") })
	if got := text("take"); got != "Take control with your passkey" {
		t.Errorf("the card's button reads %q", got)
	}
	if got := text("banner"); got != "The agent asks you to take control" {
		t.Errorf("the card's banner reads %q", got)
	}
	noPicture("card")
	shot("3-card")

	if err := d.Authenticator.SetUserVerified(ctx, false); err != nil {
		t.Fatal(err)
	}
	press("#take")
	poll(ctx, t, "the refusal", func() bool { return strings.Contains(text("status"), "did not finish") })
	noPicture("refused")
	if l.ctl.Holder() != "agent" {
		t.Fatal("a device that could not verify the User took control")
	}
	shot("4-refused")

	if err := d.Authenticator.SetUserVerified(ctx, true); err != nil {
		t.Fatal(err)
	}
	press("#take")
	poll(ctx, t, "the take", func() bool { return l.ctl.Holder() == "user" })
	poll(ctx, t, "the picture", func() bool { return read(`document.getElementById("frame").naturalWidth > 0`) == "true" })
	poll(ctx, t, "the User's turn", func() bool { return text("banner") == "You have control" })
	if dev.Touch {
		poll(ctx, t, "the agent's page at the phone's width", func() bool { return innerWidth(ctx, t, agentPage) == dev.Width })
	}
	poll(ctx, t, "a whole picture of the page as it is laid out now", func() bool {
		lk := look(ctx, t, p)
		a := agentBox(ctx, t, agentPage, "#go")
		return lk.Frame != nil && lk.NaturalW > 0 && math.Abs(lk.NaturalH*a.VW/(lk.NaturalW*a.VH)-1) < 0.03
	})
	shot("5-taken")
}
