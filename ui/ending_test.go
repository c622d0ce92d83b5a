package ui

import (
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/control"
)

// TestHandBackThroughALinkReadsAsDone: on a phone, the User opens an
// offer's single-use link, takes control, leaves a message and hands back.
// Their login ends with that turn, and the view says so as the end of a
// turn done: "You handed back: the agent continues." with their message,
// the answered offer card gone, nothing red, no "open a new link".
func TestHandBackThroughALinkReadsAsDone(t *testing.T) {
	ctx := testContext(t)
	agentPage := newPage(ctx, t, "http://company.test/form")
	ctl := controlOn(agentPage)
	l, _ := startLive(t, ctl, agentPage, nil) // takes by the link (--insecure-take-by-link)
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
	poll(ctx, t, "the take through the link", func() bool { return ctl.Holder() == "user" })
	text := func(id string) string {
		return evalString(ctx, t, live, `function(){ const e = document.getElementById("`+id+`");
			return !e ? "(none)" : e.hidden || e.offsetParent === null ? "(hidden)" : e.textContent }`)
	}
	poll(ctx, t, "the User's turn on the phone", func() bool { return text("banner") == "You have control" })
	evalString(ctx, t, live, `function(){ document.getElementById("note").value = "Checked in, seat 14C"; return "" }`)
	browsertest.TapOn(ctx, t, live, "#hand_back")
	poll(ctx, t, "the hand back", func() bool { return ctl.Holder() == "agent" })
	poll(ctx, t, "the ending", func() bool { return strings.HasPrefix(text("banner"), "You handed back") })
	// The login's end comes after the state: the ending must stay.
	poll(ctx, t, "the login's end", func() bool { return text("take") == "(hidden)" })
	if got := text("banner"); got != "You handed back: the agent continues." {
		t.Errorf("banner after the hand back = %q", got)
	}
	if got := evalString(ctx, t, live, `function(){ const b = document.getElementById("banner"); return String(b.scrollWidth > b.clientWidth) }`); got != "false" {
		t.Error("the ending's words are cut on the phone")
	}
	if got := evalString(ctx, t, live, `function(){ return document.getElementById("banner").className }`); strings.Contains(got, "lost") {
		t.Errorf("the ending is shown as a failure (banner class %q)", got)
	}
	all := evalString(ctx, t, live, `function(){ return document.body.innerText }`)
	for _, bad := range []string{"has ended", "open a new link", "not valid", "Disconnected", "The agent asks you", "THE AGENT ASKS YOU", "check in yourself"} {
		if strings.Contains(all, bad) {
			t.Errorf("the view after a hand back shows %q:\n%s", bad, all)
		}
	}
	if !strings.Contains(all, "Checked in, seat 14C") {
		t.Errorf("the view after a hand back does not show the User's message:\n%s", all)
	}
	screenshot(ctx, t, live, "phone-handed-back")
}
