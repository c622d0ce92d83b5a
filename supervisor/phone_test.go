package supervisor_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/presence"
	"github.com/poppy-browser/poppy-browser/presence/presencetest"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestPhoneCheckIn is the demo airline's check-in done by the User from a
// phone: the live view opened in a second Chromium emulating a 390x844
// phone (scale 3, touch), whose passkey (Chromium's virtual
// authenticator) the User paired. A tap takes control, after the phone's
// passkey proves it's the User; the airline's page lays
// out at the phone's width; a tap on the passport field gives the live
// view an editable element; what the phone's keyboard types reaches the
// field; a tap on Check in submits with controller=user; a tap on Hand
// back brings the agent's desktop width back, and the agent's next action
// works after a snapshot.
func TestPhoneCheckIn(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	site, signer := startSite(t)
	sv := supervisor.New(&supervisor.Options{
		Company: testsite.CompanyDomain,
		Join: supervisor.JoinOptions{
			Credentials: signer,
			HTTPClient:  site.Client(),
			ReturnTo:    testsite.BookingURL(),
		},
		Browser: supervisor.BrowserOptions{Args: site.BrowserArgs()},
		Live:    supervisor.LiveOptions{Passkeys: presence.NewStore(filepath.Join(t.TempDir(), presence.FileName))},
	})
	if err := sv.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { sv.Close() })
	if r := sv.Gate().Do(ctx, gate.Navigate{URL: testsite.CheckInURL()}); r.Outcome != spec.OutcomeDone {
		t.Fatalf("navigate: %+v", r)
	}
	snap := sv.Gate().Do(ctx, gate.Snapshot{})
	for _, e := range snap.Elements {
		if e.Role == "combobox" && e.Name == "Seat" {
			if r := sv.Gate().Do(ctx, gate.Select{Ref: e.Ref, Values: []string{"aisle"}}); r.Outcome != spec.OutcomeDone {
				t.Fatalf("select the seat: %+v", r)
			}
		}
	}
	agentPage := sv.Page()
	desktop := innerWidth(ctx, t, agentPage)
	sv.Control().RequestUser("airline.test asks you to check in yourself", nil)

	phoneBrowser, err := browser.Launch(ctx, &browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { phoneBrowser.Close() })
	live, err := phoneBrowser.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	phone := browser.Device{Width: 390, Height: 844, Scale: 3, Mobile: true, Touch: true}
	if err := live.Context().EmulateDevice(ctx, &phone); err != nil {
		t.Fatal(err)
	}
	// The User paired this phone's passkey earlier (the terminal UI's
	// pairing link); the tap on Take control asks it for the proof.
	pairing, err := sv.PairingLink()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := presencetest.Pair(ctx, live, pairing.URL); err != nil {
		t.Fatal(err)
	}
	if _, err := live.Navigate(ctx, sv.LiveURL()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the offer in the live view", func() bool {
		return eval(ctx, t, live, `function(){ return document.getElementById("banner").textContent }`) == "The agent asks you to take control"
	})
	if got := eval(ctx, t, live, "function(){ return String(document.documentElement.scrollWidth <= innerWidth) }"); got != "true" {
		t.Error("the live view scrolls sideways on the phone")
	}

	browsertest.TapOn(ctx, t, live, "#take")
	// A phone's browser widens the layout to the page's widest content
	// (here the 400-px iframes and their margins), as Chromium's mobile
	// emulation does: phone-sized, not 390 exactly.
	waitFor(t, 20*time.Second, "the airline's page at a phone's width", func() bool {
		w := innerWidth(ctx, t, agentPage)
		return w > 300 && w < 500
	})

	waitFor(t, 20*time.Second, "the live view to say the User has control", func() bool {
		return eval(ctx, t, live, `function(){ return document.getElementById("banner").textContent }`) == "You have control"
	})
	// tapAt taps the picture where sel is on the airline's page.
	tapAt := func(sel string) {
		t.Helper()
		browsertest.TapThrough(ctx, t, live, "#frame", agentPage, sel)
	}
	tapAt(`input[name="passport_number"]`)
	t.Cleanup(func() {
		if t.Failed() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			t.Logf("after the tap: the airline page focuses %q, the live view %q, its keys field %q", eval(ctx, t, agentPage, "function(){ const e = document.activeElement; return e ? e.tagName + ' ' + (e.name||'') : '' }"),
				eval(ctx, t, live, "function(){ const e = document.activeElement; return e ? e.tagName + '#' + e.id : '' }"),
				eval(ctx, t, live, "function(){ const k = document.getElementById('keys'); return k ? k.style.cssText + ' hidden=' + k.hidden : 'none' }"))
		}
	})
	waitFor(t, 20*time.Second, "an editable element focused in the live view", func() bool {
		return eval(ctx, t, live, "function(){ return document.activeElement ? document.activeElement.id : '' }") == "keys"
	})
	if err := live.InsertText(ctx, "X1234567"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the passport number in the airline's field", func() bool {
		return eval(ctx, t, agentPage, `function(){ return document.querySelector('input[name="passport_number"]').value }`) == "X1234567"
	})
	tapAt(`#check-in button[type="submit"]`)
	waitFor(t, 20*time.Second, "the airline to record the check-in", func() bool { return len(site.CheckIns()) == 1 })
	if c := site.CheckIns()[0]; c.Controller != "user" || !c.PassportGiven {
		t.Errorf("check-in = %+v, want controller=user with a passport", c)
	}

	browsertest.TapOn(ctx, t, live, "#hand_back")
	waitFor(t, 20*time.Second, "the agent to hold control", func() bool { return sv.Control().Holder() == spec.ControllerAgent })
	if w := innerWidth(ctx, t, agentPage); w != desktop {
		t.Errorf("the airline's page after hand back is %d wide (screen %s), want the agent's %d", w,
			eval(ctx, t, agentPage, "function(){ return screen.width + 'x' + screen.height }"), desktop)
	}
	if r := sv.Gate().Do(ctx, gate.Snapshot{}); r.Outcome != spec.OutcomeDone {
		t.Fatalf("snapshot after hand back: %+v", r)
	}
	if r := sv.Gate().Do(ctx, gate.Navigate{URL: testsite.BookingURL()}); r.Outcome != spec.OutcomeDone {
		t.Errorf("the agent's next action after its snapshot: %+v", r)
	}

	// The end of the task, then the runtime closes: the phone shows the end
	// with the agent's words, never a lost connection.
	sv.Finish(ctx, "You are checked in: seat aisle.")
	if err := sv.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the phone to notice the closed live view", func() bool {
		return eval(ctx, t, live, `function(){ return String(document.getElementById("take").disabled) }`) == "true"
	})
	if got := eval(ctx, t, live, `function(){ return document.getElementById("banner").textContent + " / " + document.getElementById("story-text").textContent + " / " + document.getElementById("status").textContent }`); got != "The agent finished / The agent finished: You are checked in: seat aisle. / " {
		t.Errorf("the phone at the end reads %q", got)
	}
}

func eval(ctx context.Context, t *testing.T, p *browser.Page, fn string) string {
	t.Helper()
	var s string
	if err := p.MainFrame().Call(ctx, browser.UtilityWorld, fn, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func innerWidth(ctx context.Context, t *testing.T, p *browser.Page) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimSpace(eval(ctx, t, p, "function(){ return String(innerWidth) }")))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
