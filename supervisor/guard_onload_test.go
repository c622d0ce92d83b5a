package supervisor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestGuardNewDocumentOfTheAction: the agent clicks an unmarked button
// that loads a new page, and that page's own script submits its marked
// form on load (at once, 300 ms after load, or by form.submit()). The
// navigation is the click's, so the submission is too: the form is not
// POSTed, and the click's result or the next one says the guard stopped
// it, as does the audit log.
func TestGuardNewDocumentOfTheAction(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	sv, auditPath, site := webmcpSite(t, ctx, "onload.html")
	const sub = "/fixtures/webmcp/sub"
	for _, button := range []string{"Open the page that submits at once", "Open the page that submits after 300 ms", "Open the page that posts its form"} {
		reload(t, ctx, sv, "onload.html")
		was := posts(site, sub)
		snap := sv.Gate().Do(ctx, gate.Snapshot{})
		res := sv.Gate().Do(ctx, gate.Click{Ref: refNamed(t, snap, "button", button)})
		waitFor(t, 30*time.Second, "the new page's submission", func() bool { return triedOnLoad(ctx, sv.Page()) })
		said := res.Outcome == spec.OutcomeDenied && res.Reason == spec.ReasonUserStep
		if !said && res.Outcome != spec.OutcomeDone {
			t.Errorf("%s: %s %s (%s), want done or denied user_step", button, res.Outcome, res.Reason, res.Message)
		}
		next := sv.Gate().Do(ctx, gate.Snapshot{})
		if !said && !strings.Contains(next.Message, "After the previous action (") {
			t.Errorf("%s: neither the click's result (%s) nor the next one (%s) says the guard stopped the step", button, res.Message, next.Message)
		}
		if n := posts(site, sub) - was; n != 0 {
			t.Errorf("%s: the new page's marked form was POSTed %d times", button, n)
		}
	}
	raw, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), "stopped by the in-page guard after the action returned"); n < 3 {
		t.Errorf("the audit log has %d lines for a submission stopped on a new page the action opened, want 3:\n%s", n, raw)
	}
}

// TestGuardNewDocumentInANewTab: the agent clicks an unmarked link with
// target=_blank, and the Company page the new tab loads submits its
// marked form on load (at once, or 300 ms after load). The tab is the
// action's, so the submission is too: the form is never POSTed, and the
// click's result or the next one says the guard stopped it, as does the
// audit log. Each case runs twice: a new tab once armed its guard only
// half the time.
func TestGuardNewDocumentInANewTab(t *testing.T) {
	newTabOnLoad(t, []struct{ role, name string }{
		{"link", "Open in a new tab the page that submits at once"},
		{"link", "Open in a new tab the page that submits after 300 ms"},
	})
}

// TestGuardNewDocumentInAWindowOpened is TestGuardNewDocumentInANewTab
// for a button that calls window.open(url), the popup keeping its opener,
// on a page that submits 300 ms after load: Chromium keeps the popup's
// initial about:blank Window, and its scripts' world, for that page, so
// the guard armed in the about:blank is the one the page meets.
func TestGuardNewDocumentInAWindowOpened(t *testing.T) {
	newTabOnLoad(t, []struct{ role, name string }{
		{"button", "Open a window on the page that submits after 300 ms"},
	})
}

// TestGuardNewDocumentInAWindowOpenedAtOnce is the same for a page that
// submits at once on load.
func TestGuardNewDocumentInAWindowOpenedAtOnce(t *testing.T) {
	t.Skip("known bug, open (POSTed every run): armNew arms the popup's about:blank in time and performance.now() is not reset (timeOrigin is the same in the reused Window), but the marks world's window listeners, added in the about:blank, are not called in the first document the reused Window loads until some time after its load (measured: no readystatechange, DOMContentLoaded, submit or load reaches them; a formdata event does, after load, and taking the form out then does not stop the POST); a submission 300 ms later is caught, and so is this one when the page itself first adds a submit listener on its window (one of an unrelated type does not help))")
	newTabOnLoad(t, []struct{ role, name string }{
		{"button", "Open a window on the page that submits at once"},
	})
}

// newTabOnLoad runs each case (the role and name of an element of
// onload.html that opens onload-submit.html in a new tab) twice.
func newTabOnLoad(t *testing.T, cases []struct{ role, name string }) {
	ctx, cancel := context.WithTimeout(t.Context(), 6*time.Minute)
	defer cancel()
	sv, auditPath, site := webmcpSite(t, ctx, "onload.html")
	const sub = "/fixtures/webmcp/sub"
	const stopped = "stopped by the in-page guard after the action returned"
	zero := 0
	for round := range 2 {
		for _, c := range cases {
			what := fmt.Sprintf("%s (round %d)", c.name, round+1)
			reload(t, ctx, sv, "onload.html")
			was, seen := posts(site, sub), len(auditLines(t, auditPath))
			snap := sv.Gate().Do(ctx, gate.Snapshot{})
			res := sv.Gate().Do(ctx, gate.Click{Ref: refNamed(t, snap, c.role, c.name)})
			if len(res.TabsOpened) != 1 {
				t.Fatalf("%s: %s %s (%s), tabs opened %+v, want the one new tab", what, res.Outcome, res.Reason, res.Message, res.TabsOpened)
			}
			waitFor(t, 30*time.Second, what+": the new tab's submission", func() bool { return triedOnLoad(ctx, sv.Page()) })
			said := res.Outcome == spec.OutcomeDenied && res.Reason == spec.ReasonUserStep
			if !said && res.Outcome != spec.OutcomeDone {
				t.Errorf("%s: %s %s (%s), want done or denied user_step", what, res.Outcome, res.Reason, res.Message)
			}
			next := sv.Gate().Do(ctx, gate.Snapshot{})
			if !said && !strings.Contains(next.Message, "After the previous action (browser_click)") {
				t.Errorf("%s: neither the click's result (%s) nor the next one (%s) says the guard stopped the step", what, res.Message, next.Message)
			}
			if n := posts(site, sub) - was; n != 0 {
				t.Errorf("%s: the new tab's marked form was POSTed %d times", what, n)
			}
			n := 0
			for _, l := range auditLines(t, auditPath)[seen:] {
				if l.Event == audit.EventDenied && l.Reason == string(spec.ReasonUserStep) && strings.Contains(l.Message, stopped) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%s: the audit log has %d lines for the stopped submission, want 1", what, n)
			}
			i := res.TabsOpened[0].Index
			if r := sv.Gate().Do(ctx, gate.Tabs{Action: gate.TabClose, Index: &i}); r.Outcome != spec.OutcomeDone {
				t.Fatalf("%s: close the new tab: %s %s (%s)", what, r.Outcome, r.Reason, r.Message)
			}
			if r := sv.Gate().Do(ctx, gate.Tabs{Action: gate.TabSelect, Index: &zero}); r.Outcome != spec.OutcomeDone {
				t.Fatalf("%s: select the first tab: %s %s (%s)", what, r.Outcome, r.Reason, r.Message)
			}
		}
	}
}

// triedOnLoad says whether the page reached from onload.html has tried
// its submission (or has gone on, to where a submission leads).
func triedOnLoad(ctx context.Context, p *browser.Page) bool {
	var s string
	err := p.MainFrame().Call(ctx, browser.UtilityWorld, `function(){
		if (location.pathname.endsWith("/onload.html")) return "";
		const l = document.getElementById("log");
		return l ? l.textContent : "tried (gone)" }`, &s)
	return err == nil && strings.Contains(s, "tried")
}

// TestGuardNewDocumentStandsDown: the User who takes control right after
// the agent's click loaded a new page (within the 2 s its guard watches)
// submits that page's marked form themselves, and it is sent; so is the
// form of a page the User then opens in their turn: the take stood down
// the new page's guard and ended the window for documents to come. No
// result or audit line blames the User's steps on the agent.
func TestGuardNewDocumentStandsDown(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	sv, auditPath, site := webmcpSite(t, ctx, "onload.html")
	page := sv.Page()
	const sub = "/fixtures/webmcp/sub"
	snap := sv.Gate().Do(ctx, gate.Snapshot{})
	if res := sv.Gate().Do(ctx, gate.Click{Ref: refNamed(t, snap, "button", "Open the page that waits")}); res.Outcome != spec.OutcomeDone {
		t.Fatalf("the agent's click: %s %s (%s)", res.Outcome, res.Reason, res.Message)
	}
	seen := len(auditLines(t, auditPath))
	waitFor(t, 20*time.Second, "the new page", func() bool { return checkInAt(ctx, page) != nil })
	if err := sv.Control().User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	userSubmits := func(what string) {
		t.Helper()
		was := posts(site, sub)
		// The page may still be loading (Navigate returns before "complete").
		var at []float64
		waitFor(t, 20*time.Second, what+": the Check in button", func() bool { at = checkInAt(ctx, page); return at != nil })
		if err := page.Click(ctx, at[0], at[1]); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 20*time.Second, what+" to be POSTed", func() bool { return posts(site, sub) > was })
	}
	userSubmits("the User's check-in on the page the agent's click opened")
	// In the User's turn, a page the User opens: no guard at its start.
	if _, err := page.Navigate(ctx, testsite.WebMCPFixtureURL("onload-submit.html")+"?at=none"); err != nil {
		t.Fatal(err)
	}
	userSubmits("the User's check-in on a page they opened")
	if err := sv.Control().User().HandBack(ctx); err != nil {
		t.Fatal(err)
	}
	if res := sv.Gate().Do(ctx, gate.Snapshot{}); strings.Contains(res.Message, "After the previous action") {
		t.Errorf("the User's own step is reported as the agent's: %s", res.Message)
	}
	for _, l := range auditLines(t, auditPath)[seen:] {
		if l.Event == audit.EventDenied {
			t.Errorf("an audit line blames the User's step on the agent: %s %s %s (%s)", l.Tool, l.Event, l.Reason, l.Message)
		}
	}
}

// checkInAt is the centre of the Check in button of the page reached
// from onload.html, or nil while another page shows.
func checkInAt(ctx context.Context, p *browser.Page) []float64 {
	var s string
	err := p.MainFrame().Call(ctx, browser.UtilityWorld, `function(){
		const b = location.pathname.endsWith("/onload-submit.html") && document.readyState === "complete" && document.getElementById("send");
		if (!b) return "null";
		const r = b.getBoundingClientRect();
		return JSON.stringify([r.x + r.width/2, r.y + r.height/2]) }`, &s)
	var at []float64
	if err != nil || json.Unmarshal([]byte(s), &at) != nil {
		return nil
	}
	return at
}

// TestGuardNewDocumentOtherWebsite: the agent's click loads a page of
// another website (partner.test) whose own script submits its marked
// form on load. Other websites are not the Company's to mark, so the
// guard is not armed there: the form is POSTed, and no result or audit
// line says a step was stopped. The same page on the Company's website,
// opened the same way, is stopped.
func TestGuardNewDocumentOtherWebsite(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	sv, auditPath, site := webmcpSite(t, ctx, "onload.html")
	const sub = "/fixtures/webmcp/sub"
	partnerPosts := func() int {
		n := 0
		for _, r := range site.Requests(testsite.PartnerHost) {
			if r.Method == "POST" && r.Path == sub {
				n++
			}
		}
		return n
	}
	seen := len(auditLines(t, auditPath))
	snap := sv.Gate().Do(ctx, gate.Snapshot{})
	res := sv.Gate().Do(ctx, gate.Click{Ref: refNamed(t, snap, "button", "Open another website's page that submits at once")})
	if res.Outcome != spec.OutcomeDone {
		t.Fatalf("the click: %s %s (%s)", res.Outcome, res.Reason, res.Message)
	}
	waitFor(t, 30*time.Second, "the other website's form to be POSTed", func() bool { return partnerPosts() > 0 })
	if next := sv.Gate().Do(ctx, gate.Snapshot{}); strings.Contains(next.Message, "After the previous action") {
		t.Errorf("another website's own submission is reported as stopped: %s", next.Message)
	}
	for _, l := range auditLines(t, auditPath)[seen:] {
		if l.Event == audit.EventDenied {
			t.Errorf("an audit line says another website's step was stopped: %s %s %s (%s)", l.Tool, l.Event, l.Reason, l.Message)
		}
	}
	// The Company's page, opened the same way: stopped.
	reload(t, ctx, sv, "onload.html")
	was := posts(site, sub)
	snap = sv.Gate().Do(ctx, gate.Snapshot{})
	res = sv.Gate().Do(ctx, gate.Click{Ref: refNamed(t, snap, "button", "Open the page that submits at once")})
	waitFor(t, 30*time.Second, "the Company's page's submission", func() bool { return triedOnLoad(ctx, sv.Page()) })
	said := res.Outcome == spec.OutcomeDenied && res.Reason == spec.ReasonUserStep
	if next := sv.Gate().Do(ctx, gate.Snapshot{}); !said && !strings.Contains(next.Message, "After the previous action (") {
		t.Errorf("the Company's page's submission on load: neither the click's result (%s) nor the next (%s) says the guard stopped it", res.Message, next.Message)
	}
	if n := posts(site, sub) - was; n != 0 {
		t.Errorf("the Company's page's marked form was POSTed %d times", n)
	}
}

// TestGuardNewDocumentTakeDuringCommit: the agent's click starts a
// navigation to a Company page, and the User takes control while it is in
// flight (the server holds the page's response until the take is done),
// so the page commits and loads in the User's turn. No document of the
// User's turn is guarded: the User checks in on that page and on a page
// they open themselves, and both forms are POSTed. The click answers
// truthfully: it was done (or says the User took control), nothing in it
// or later blames the User's steps on the agent, and no audit line does.
func TestGuardNewDocumentTakeDuringCommit(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	sv, auditPath, site := webmcpSite(t, ctx, "onload.html")
	page := sv.Page()
	const sub = "/fixtures/webmcp/sub"
	held := site.Hold(testsite.CompanyDomain, "/fixtures/webmcp/onload-submit.html")
	defer held.Release()
	snap := sv.Gate().Do(ctx, gate.Snapshot{})
	seen := len(auditLines(t, auditPath))
	ref := refNamed(t, snap, "button", "Open the page that waits")
	clicked := make(chan gate.Result, 1)
	go func() { clicked <- sv.Gate().Do(ctx, gate.Click{Ref: ref}) }()
	select {
	case <-held.Arrived():
	case <-ctx.Done():
		t.Fatal("the click's navigation never reached the server")
	}
	if err := sv.Control().User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	held.Release()
	res := <-clicked
	if res.Outcome != spec.OutcomeDone && !(res.Outcome == spec.OutcomeDenied && res.Reason == spec.ReasonUserHasControl) {
		t.Errorf("the agent's click: %s %s (%s), want done (the click happened) or user_has_control", res.Outcome, res.Reason, res.Message)
	}
	if strings.Contains(res.Message, "stopped") || res.Reason == spec.ReasonUserStep {
		t.Errorf("the agent's click says a step was stopped: %s %s (%s)", res.Outcome, res.Reason, res.Message)
	}
	userSubmits := func(what string) {
		t.Helper()
		waitFor(t, 30*time.Second, what+": the page", func() bool { return checkInAt(ctx, page) != nil })
		was := posts(site, sub)
		at := checkInAt(ctx, page)
		if err := page.Click(ctx, at[0], at[1]); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 20*time.Second, what+" to be POSTed", func() bool { return posts(site, sub) > was })
	}
	userSubmits("the User's check-in on the page the agent's click was loading")
	if _, err := page.Navigate(ctx, testsite.WebMCPFixtureURL("onload-submit.html")+"?at=none"); err != nil {
		t.Fatal(err)
	}
	userSubmits("the User's check-in on a page they opened")
	if err := sv.Control().User().HandBack(ctx); err != nil {
		t.Fatal(err)
	}
	if next := sv.Gate().Do(ctx, gate.Snapshot{}); strings.Contains(next.Message, "After the previous action") {
		t.Errorf("the User's own step is reported as the agent's: %s", next.Message)
	}
	for _, l := range auditLines(t, auditPath)[seen:] {
		if l.Event == audit.EventDenied && l.Reason == string(spec.ReasonUserStep) {
			t.Errorf("an audit line blames the User's step on the agent: %s %s %s (%s)", l.Tool, l.Event, l.Reason, l.Message)
		}
	}
	t.Logf("the agent's click: %s %s (%s)", res.Outcome, res.Reason, res.Message)
}
