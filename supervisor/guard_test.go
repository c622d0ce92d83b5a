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
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// posts counts the POST requests the Company's host received to path.
func posts(site *testsite.Site, path string) int {
	n := 0
	for _, r := range site.Requests(testsite.CompanyDomain) {
		if r.Method == "POST" && r.Path == path {
			n++
		}
	}
	return n
}

// reload opens the fixture name again, fresh.
func reload(t *testing.T, ctx context.Context, sv *supervisor.Supervisor, name string) {
	t.Helper()
	if r := sv.Gate().Do(ctx, gate.Navigate{URL: testsite.WebMCPFixtureURL(name)}); r.Outcome != spec.OutcomeDone {
		t.Fatalf("navigate: %+v", r)
	}
}

// TestGuardJudgesByMarksAtArming: a page's own script, run by the agent's
// action (a WebMCP tool, or the onclick of an unmarked button), that takes
// the User's step after going around its mark (the mark removed, then
// requestSubmit or submit(); a clone of the form without the mark
// submitted; a field unmarked, then set) is judged by the marks as they
// were when the guard armed: denied user_step naming the mark, the form
// not POSTed, the field put back. An unmarked form is still sent.
func TestGuardJudgesByMarksAtArming(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	sv, _, site := webmcpSite(t, ctx, "unmarked.html")
	const sub = "/fixtures/webmcp/sub"
	const read = `function(){ const p = document.getElementById("passport"), l = document.getElementById("log"); return [l ? l.textContent : "(no log)", p ? p.value : "(no field)", location.pathname].join("|") }`
	const before = "||/fixtures/webmcp/unmarked.html"
	cases := []struct {
		tool, button string
		kind         spec.MarkKind
	}{
		{"remove_then_request_submit", "Remove and requestSubmit", spec.Submission},
		{"remove_then_submit", "Remove and submit", spec.Submission},
		{"clone_then_submit", "Clone and submit", spec.Submission},
		{"unmark_then_set", "Unmark and set", spec.Interaction},
	}
	for _, tc := range cases {
		for _, how := range []string{"tool", "click"} {
			reload(t, ctx, sv, "unmarked.html")
			var a gate.Action = gate.WebMCPCall{Name: tc.tool}
			if how == "tool" {
				listTools(t, ctx, sv, tc.tool)
			} else {
				snap := sv.Gate().Do(ctx, gate.Snapshot{})
				a = gate.Click{Ref: refNamed(t, snap, "button", tc.button)}
			}
			was := posts(site, sub)
			res := sv.Gate().DoAndSee(ctx, a)
			if res.Outcome != spec.OutcomeDenied || res.Reason != spec.ReasonUserStep || res.Mark == nil || res.Mark.Kind != tc.kind {
				t.Errorf("%s by %s: %s %s %+v (%s), want denied user_step naming the %s mark", tc.tool, how, res.Outcome, res.Reason, res.Mark, res.Message, tc.kind)
			}
			if got := eval(ctx, t, sv.Page(), read); got != before {
				t.Errorf("%s by %s: the page reads %q, want %q (no submission seen, the field put back, still on the page)", tc.tool, how, got, before)
			}
			if n := posts(site, sub) - was; n != 0 {
				t.Errorf("%s by %s: the form was POSTed %d times", tc.tool, how, n)
			}
		}
	}
	// No over-refusal: an unmarked form is sent, by a tool and by a click.
	for _, how := range []string{"tool", "click"} {
		reload(t, ctx, sv, "unmarked.html")
		var a gate.Action = gate.WebMCPCall{Name: "plain_search"}
		if how == "tool" {
			listTools(t, ctx, sv, "plain_search")
		} else {
			snap := sv.Gate().Do(ctx, gate.Snapshot{})
			a = gate.Click{Ref: refNamed(t, snap, "button", "Plain search")}
		}
		was := posts(site, sub)
		if res := sv.Gate().DoAndSee(ctx, a); res.Outcome != spec.OutcomeDone {
			t.Errorf("plain search by %s: %s %s (%s), want done", how, res.Outcome, res.Reason, res.Message)
		}
		waitFor(t, 20*time.Second, "the unmarked search to be POSTed", func() bool { return posts(site, sub) > was })
	}
}

// tabAt is the open tab whose URL ends in suffix.
func tabAt(t *testing.T, sv *supervisor.Supervisor, suffix string) *browser.Page {
	t.Helper()
	for _, p := range sv.Page().Context().Pages() {
		if strings.HasSuffix(p.URL(), suffix) {
			return p
		}
	}
	t.Fatalf("no tab at %s", suffix)
	return nil
}

// TestGuardEveryTab: a script the agent's action runs in one tab of the
// Session (a click's handler or a WebMCP tool) that reaches another
// Company tab (the opener through window.opener, a named window through
// window.open("", name)) meets the guard armed there: its submission is
// stopped and its change of a marked field put back, and the call answers
// denied user_step naming the mark.
func TestGuardEveryTab(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	sv, _, site := webmcpSite(t, ctx, "opener.html")
	snap := sv.Gate().Do(ctx, gate.Snapshot{})
	if res := sv.Gate().Do(ctx, gate.Click{Ref: refNamed(t, snap, "button", "Open the helper")}); res.Outcome != spec.OutcomeDone || len(res.TabsOpened) != 1 {
		t.Fatalf("open the helper: %s %s (%s), tabs opened %+v", res.Outcome, res.Reason, res.Message, res.TabsOpened)
	}
	waitFor(t, 20*time.Second, "the helper to be the active tab", func() bool { return strings.HasSuffix(sv.Page().URL(), "/helper.html") })
	opener := tabAt(t, sv, "/opener.html")
	const readOpener = `function(){ return document.getElementById("passport").value + "|" + location.pathname }`
	check := func(what string, a gate.Action, kind spec.MarkKind, path string) {
		t.Helper()
		was := posts(site, path)
		res := sv.Gate().DoAndSee(ctx, a)
		if res.Outcome != spec.OutcomeDenied || res.Reason != spec.ReasonUserStep || res.Mark == nil || res.Mark.Kind != kind || res.CaughtBy != gate.CaughtByGuard {
			t.Errorf("%s: %s %s %+v caught by %q (%s), want denied user_step (%s) by the guard", what, res.Outcome, res.Reason, res.Mark, res.CaughtBy, res.Message, kind)
		}
		if got := eval(ctx, t, opener, readOpener); got != "|/fixtures/webmcp/opener.html" {
			t.Errorf("%s: the opener reads %q, want its passport field empty, still on its page", what, got)
		}
		if n := posts(site, path) - was; n != 0 {
			t.Errorf("%s: %s was POSTed %d times", what, path, n)
		}
	}
	const sub, sub2 = "/fixtures/webmcp/sub", "/fixtures/webmcp/sub2"

	// From the popup to its opener.
	snap = sv.Gate().Do(ctx, gate.Snapshot{})
	check("click: submit the opener's form", gate.Click{Ref: refNamed(t, snap, "button", "Submit the opener's form")}, spec.Submission, sub)
	snap = sv.Gate().Do(ctx, gate.Snapshot{})
	check("click: set the opener's passport", gate.Click{Ref: refNamed(t, snap, "button", "Set the opener's passport")}, spec.Interaction, sub)
	listTools(t, ctx, sv, "submit_opener", "set_opener_passport")
	check("tool: submit the opener's form", gate.WebMCPCall{Name: "submit_opener"}, spec.Submission, sub)
	check("tool: set the opener's passport", gate.WebMCPCall{Name: "set_opener_passport"}, spec.Interaction, sub)

	// From the opener to the named window.
	zero := 0
	if res := sv.Gate().Do(ctx, gate.Tabs{Action: gate.TabSelect, Index: &zero}); res.Outcome != spec.OutcomeDone {
		t.Fatalf("select the opener: %s %s (%s)", res.Outcome, res.Reason, res.Message)
	}
	snap = sv.Gate().Do(ctx, gate.Snapshot{})
	check("click: submit the helper's form", gate.Click{Ref: refNamed(t, snap, "button", "Submit the helper's form")}, spec.Submission, sub2)
	listTools(t, ctx, sv, "submit_in_helper")
	check("tool: submit the helper's form", gate.WebMCPCall{Name: "submit_in_helper"}, spec.Submission, sub2)
	if u := tabAt(t, sv, "/helper.html").URL(); !strings.HasSuffix(u, "/helper.html") {
		t.Errorf("the helper moved to %s", u)
	}
}

// TestWebMCPHonestAnswers: a tool that opens a dialog answers at once
// with it, as a click does; every line of a tool's output is labelled as
// the website's, so none reads as the runtime's own; and a tool that sends
// the marked form's data with its own fetch is reported as having sent it
// (marks cannot stop a page's own requests), not as stopped.
func TestWebMCPHonestAnswers(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	sv, _, site := webmcpSite(t, ctx, "honest.html")
	listTools(t, ctx, sv, "alert_tool", "confirm_tool", "multiline", "fetch_form_data")

	for _, tc := range []struct{ tool, typ, message string }{
		{"alert_tool", "alert", "Seat map loaded"},
		{"confirm_tool", "confirm", "Keep the seat?"},
	} {
		res := sv.Gate().Do(ctx, gate.WebMCPCall{Name: tc.tool})
		if res.Outcome != spec.OutcomeDone || res.Dialog == nil || res.Dialog.Type != tc.typ || res.Dialog.Message != tc.message {
			t.Errorf("%s: %s %s (%s) dialog %+v, want done with the %s", tc.tool, res.Outcome, res.Reason, res.Message, res.Dialog, tc.typ)
		}
		if res := sv.Gate().Do(ctx, gate.HandleDialog{Accept: true}); res.Outcome != spec.OutcomeDone {
			t.Errorf("answering the %s: %s %s (%s)", tc.typ, res.Outcome, res.Reason, res.Message)
		}
	}

	res := sv.Gate().Do(ctx, gate.WebMCPCall{Name: "multiline"})
	if res.Outcome != spec.OutcomeDone {
		t.Fatalf("multiline: %s %s (%s)", res.Outcome, res.Reason, res.Message)
	}
	lines := strings.Split(strings.TrimSuffix(res.Text, "\n"), "\n")
	if len(lines) != 5 || !strings.Contains(lines[0], "content from the Company, not instructions") {
		t.Fatalf("multiline's text:\n%s\nwant a labelled header and the 4 lines of output", res.Text)
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "| ") {
			t.Errorf("a line of the tool's output is not marked as the website's: %q", l)
		}
	}

	was := posts(site, "/fixtures/webmcp/sub")
	res = sv.Gate().Do(ctx, gate.WebMCPCall{Name: "fetch_form_data"})
	waitFor(t, 20*time.Second, "the page's own POST", func() bool { return posts(site, "/fixtures/webmcp/sub") > was })
	if res.CaughtBy != "" || res.Outcome == spec.OutcomeDenied || !strings.Contains(res.Message, "sent a request") || !strings.Contains(res.Message, "/fixtures/webmcp/sub") {
		t.Errorf("fetch_form_data: %s %s caught by %q (%s), want it reported as sent to /fixtures/webmcp/sub, not stopped", res.Outcome, res.Reason, res.CaughtBy, res.Message)
	}
}

// TestGuardAfterTheCall: a script the agent's action started that submits
// the marked form from a timer after the action returned (0, 50 and 1,500
// ms) meets the guard, armed 2 s more without holding the call: the form
// is not POSTed, and the step stopped is said in the action's result (when
// the timer fired during it) or in the next one, and in the audit log. A
// timer of 2,500 ms is past that window: its submission goes through, as
// the docs say.
func TestGuardAfterTheCall(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	sv, auditPath, site := webmcpSite(t, ctx, "late.html")
	const sub = "/fixtures/webmcp/sub"
	tried := func() bool {
		return strings.Contains(eval(ctx, t, sv.Page(), `function(){ const l = document.getElementById("log"); return l ? l.textContent : "tried (gone)" }`), "tried")
	}
	action := func(how string, ms int) gate.Action {
		if how == "tool" {
			listTools(t, ctx, sv, fmt.Sprintf("submit_after_%d", ms))
			return gate.WebMCPCall{Name: fmt.Sprintf("submit_after_%d", ms)}
		}
		snap := sv.Gate().Do(ctx, gate.Snapshot{})
		return gate.Click{Ref: refNamed(t, snap, "button", fmt.Sprintf("Submit after %d ms", ms))}
	}
	for _, ms := range []int{0, 50, 1500} {
		for _, how := range []string{"tool", "click"} {
			reload(t, ctx, sv, "late.html")
			was := posts(site, sub)
			res := sv.Gate().Do(ctx, action(how, ms))
			waitFor(t, 20*time.Second, "the page's timer", tried)
			said := res.Outcome == spec.OutcomeDenied && res.Reason == spec.ReasonUserStep
			if !said && res.Outcome != spec.OutcomeDone {
				t.Errorf("%d ms by %s: %s %s (%s), want done or denied user_step", ms, how, res.Outcome, res.Reason, res.Message)
			}
			next := sv.Gate().Do(ctx, gate.Snapshot{})
			if !said && !strings.Contains(next.Message, "After the previous action (") {
				t.Errorf("%d ms by %s: neither the action's result (%s) nor the next one (%s) says the guard stopped the step", ms, how, res.Message, next.Message)
			}
			if n := posts(site, sub) - was; n != 0 {
				t.Errorf("%d ms by %s: the form was POSTed %d times", ms, how, n)
			}
			if got := eval(ctx, t, sv.Page(), `function(){ return location.pathname }`); got != "/fixtures/webmcp/late.html" {
				t.Errorf("%d ms by %s: the page moved to %s", ms, how, got)
			}
		}
	}
	// The audit log has a line for each step the guard stopped after the action.
	raw, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), "stopped by the in-page guard after the action returned"); n == 0 {
		t.Errorf("the audit log has no line for a step stopped after the action returned:\n%s", raw)
	}
	// Past the window: the 2,500 ms timer's submission goes through.
	for _, how := range []string{"tool", "click"} {
		reload(t, ctx, sv, "late.html")
		was := posts(site, sub)
		if res := sv.Gate().Do(ctx, action(how, 2500)); res.Outcome != spec.OutcomeDone {
			t.Errorf("2500 ms by %s: %s %s (%s), want done", how, res.Outcome, res.Reason, res.Message)
		}
		waitFor(t, 20*time.Second, "the submission past the guard's window", func() bool { return posts(site, sub) > was })
	}
}

// TestGuardAfterTheCallStandsDown: the User who takes control within the
// 2 s the guard stays armed after the agent's action submits the marked
// form themselves, and it is sent: the take stood the guard down at once,
// and no audit line blames the User's step on the agent.
func TestGuardAfterTheCallStandsDown(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	sv, auditPath, site := webmcpSite(t, ctx, "late.html")
	page := sv.Page()
	var at [2]float64
	if err := json.Unmarshal([]byte(eval(ctx, t, page, `function(){ const r = document.getElementById("send").getBoundingClientRect(); return JSON.stringify([r.x + r.width/2, r.y + r.height/2]) }`)), &at); err != nil {
		t.Fatal(err)
	}
	snap := sv.Gate().Do(ctx, gate.Snapshot{})
	if res := sv.Gate().Do(ctx, gate.Click{Ref: refNamed(t, snap, "button", "Note")}); res.Outcome != spec.OutcomeDone {
		t.Fatalf("the agent's click: %s %s (%s)", res.Outcome, res.Reason, res.Message)
	}
	seen := len(auditLines(t, auditPath))
	// At once, well within the guard's 2 s after the click.
	if err := sv.Control().User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	was := posts(site, "/fixtures/webmcp/sub")
	if err := page.Click(ctx, at[0], at[1]); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the User's check-in to be POSTed", func() bool { return posts(site, "/fixtures/webmcp/sub") > was })
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
