package supervisor_test

import (
	"context"
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

// stoppedOrSaid checks the guard's word on a step a script of the action
// took: the action's own result says denied user_step by the guard, or
// (when the step came after it returned) the next result says what the
// guard stopped after the previous action.
func stoppedOrSaid(ctx context.Context, t *testing.T, sv *supervisor.Supervisor, what string, res gate.Result) {
	t.Helper()
	if res.Outcome == spec.OutcomeDenied && res.Reason == spec.ReasonUserStep && res.CaughtBy == gate.CaughtByGuard {
		return
	}
	if res.Outcome != spec.OutcomeDone {
		t.Errorf("%s: %s %s (%s), want done or denied user_step", what, res.Outcome, res.Reason, res.Message)
	}
	if next := sv.Gate().Do(ctx, gate.Snapshot{}); !strings.Contains(next.Message, "After the previous action (") {
		t.Errorf("%s: neither the action's result (%s) nor the next one (%s) says the guard stopped the step", what, res.Message, next.Message)
	}
}

// tries counts the "tried" the page's own log in frame f shows.
func tries(ctx context.Context, t *testing.T, f browser.Frame) int {
	t.Helper()
	var s string
	if err := f.Call(ctx, browser.UtilityWorld, `function(){ const l = document.getElementById("log"); return l ? l.textContent : "" }`, &s); err != nil {
		return -1 // between documents, or busy: not yet
	}
	return strings.Count(s, "tried")
}

// TestGuardBroadcastChannel: a script the agent's action runs in one tab
// (a click's handler, a WebMCP tool) that tells another Company tab, with
// no opener or name between them, on a BroadcastChannel to submit its
// marked form meets the guard armed in that tab: the form is not POSTed
// and the action's result, or the next, says the guard stopped the step.
func TestGuardBroadcastChannel(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	sv, _, site := webmcpSite(t, ctx, "channel.html")
	snap := sv.Gate().Do(ctx, gate.Snapshot{})
	if res := sv.Gate().Do(ctx, gate.Click{Ref: refNamed(t, snap, "button", "Open the helper")}); res.Outcome != spec.OutcomeDone || len(res.TabsOpened) != 1 {
		t.Fatalf("open the helper: %s %s (%s), tabs opened %+v", res.Outcome, res.Reason, res.Message, res.TabsOpened)
	}
	waitFor(t, 20*time.Second, "the helper to be the active tab", func() bool { return strings.HasSuffix(sv.Page().URL(), "/channel-helper.html") })
	other := tabAt(t, sv, "/channel.html")
	const sub = "/fixtures/webmcp/sub"
	listTools(t, ctx, sv, "ask_other_tab")
	for i, how := range []string{"click", "tool"} {
		var a gate.Action = gate.WebMCPCall{Name: "ask_other_tab"}
		if how == "click" {
			a = gate.Click{Ref: refNamed(t, sv.Gate().Do(ctx, gate.Snapshot{}), "button", "Ask the other tab to submit")}
		}
		was := posts(site, sub)
		res := sv.Gate().DoAndSee(ctx, a)
		waitFor(t, 20*time.Second, "the other tab's handler", func() bool { return tries(ctx, t, other.MainFrame()) > i })
		stoppedOrSaid(ctx, t, sv, how, res)
		if n := posts(site, sub) - was; n != 0 {
			t.Errorf("%s: the other tab's marked form was POSTed %d times", how, n)
		}
		if u := other.URL(); !strings.HasSuffix(u, "/channel.html") {
			t.Fatalf("%s: the other tab moved to %s", how, u)
		}
	}
}

// TestGuardFrameDelayedSubmit: the agent's action asks a Company frame
// (postMessage) to submit its marked form 500 ms later and returns at
// once: the submission comes within the 2 s the guard stays armed after
// the call, in that frame too, so it is not POSTed and a result says so.
func TestGuardFrameDelayedSubmit(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	sv, auditPath, site := webmcpSite(t, ctx, "late-frame.html")
	const sub = "/fixtures/webmcp/sub"
	formFrame := func() (browser.Frame, bool) {
		for _, f := range sv.Page().Frames() {
			if strings.HasSuffix(f.URL, "/late-frame-form.html") {
				return f, true
			}
		}
		return browser.Frame{}, false
	}
	for _, how := range []string{"click", "tool"} {
		reload(t, ctx, sv, "late-frame.html")
		var a gate.Action = gate.WebMCPCall{Name: "frame_submit_later"}
		if how == "click" {
			a = gate.Click{Ref: refNamed(t, sv.Gate().Do(ctx, gate.Snapshot{}), "button", "Ask the frame to submit later")}
		} else {
			listTools(t, ctx, sv, "frame_submit_later")
		}
		waitFor(t, 20*time.Second, "the form's frame", func() bool { _, ok := formFrame(); return ok })
		was := posts(site, sub)
		res := sv.Gate().Do(ctx, a)
		waitFor(t, 20*time.Second, "the frame's timer", func() bool {
			f, ok := formFrame()
			return ok && tries(ctx, t, f) > 0
		})
		stoppedOrSaid(ctx, t, sv, how, res)
		if n := posts(site, sub) - was; n != 0 {
			t.Errorf("%s: the frame's marked form was POSTed %d times", how, n)
		}
		if f, ok := formFrame(); !ok || !strings.HasSuffix(f.URL, "/late-frame-form.html") {
			t.Errorf("%s: the form's frame navigated away", how)
		}
	}
	if lines := auditLines(t, auditPath); !strings.Contains(func() string {
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(l.Message + "\n")
		}
		return b.String()
	}(), "stopped by the in-page guard") {
		t.Errorf("the audit log has no line for the steps the guard stopped")
	}
}

// TestGuardBusyTab: a Company tab whose main thread is busy (one long
// task, in a renderer of its own) when the agent's action begins cannot
// have the guard armed within its bound: the action is not held up past
// it (it returns while that tab is still busy), and its result names that tab as one the guard was not armed in. A
// script of the action that tells the busy tab (BroadcastChannel) to
// submit its marked form is then either stopped, or sent: in which case
// the result said, truthfully, that the tab was not watched. When the
// guard was armed there late (once the tab was free) and stopped it, the
// next action's result and the audit log say so, as for any step the
// guard stopped after an action returned.
func TestGuardBusyTab(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	sv, auditPath, site := webmcpSite(t, ctx, "busy-opener.html")
	snap := sv.Gate().Do(ctx, gate.Snapshot{})
	if res := sv.Gate().Do(ctx, gate.Click{Ref: refNamed(t, snap, "button", "Open the other tab")}); res.Outcome != spec.OutcomeDone || len(res.TabsOpened) != 1 {
		t.Fatalf("open the other tab: %s %s (%s), tabs opened %+v", res.Outcome, res.Reason, res.Message, res.TabsOpened)
	}
	waitFor(t, 20*time.Second, "the other tab to load", func() bool {
		for _, p := range sv.Page().Context().Pages() {
			if strings.HasSuffix(p.URL(), "/busy-tab.html") {
				return true
			}
		}
		return false
	})
	busyTab := tabAt(t, sv, "/busy-tab.html")
	waitFor(t, 20*time.Second, "the other tab's script", func() bool { return tries(ctx, t, busyTab.MainFrame()) == 0 })
	zero := 0
	if !strings.HasSuffix(sv.Page().URL(), "/busy-opener.html") {
		if res := sv.Gate().Do(ctx, gate.Tabs{Action: gate.TabSelect, Index: &zero}); res.Outcome != spec.OutcomeDone {
			t.Fatalf("select the opener: %s %s (%s)", res.Outcome, res.Reason, res.Message)
		}
	}
	snap = sv.Gate().Do(ctx, gate.Snapshot{})
	if res := sv.Gate().Do(ctx, gate.Click{Ref: refNamed(t, snap, "button", "Make the other tab busy")}); res.Outcome != spec.OutcomeDone {
		t.Fatalf("make the other tab busy: %s %s (%s)", res.Outcome, res.Reason, res.Message)
	}
	signalled := func(name string) bool {
		for _, r := range site.Requests(testsite.CompanyDomain) {
			if strings.HasSuffix(r.Path, "/"+name) {
				return true
			}
		}
		return false
	}
	waitFor(t, 20*time.Second, "the other tab to be busy", func() bool { return signalled("busy-signal") })

	const sub3 = "/fixtures/webmcp/sub3"
	snap = sv.Gate().Do(ctx, gate.Snapshot{})
	res := sv.Gate().Do(ctx, gate.Click{Ref: refNamed(t, snap, "button", "Ask the other tab to submit")})
	if signalled("free-signal") {
		// Its long task is 25 s; the arming's bound is 5 s.
		t.Errorf("the action returned only after the busy tab was free again: the busy tab held it up")
	}
	named := strings.Contains(res.Message, "could not be armed") && strings.Contains(res.Message, "/busy-tab.html")
	if !named {
		t.Errorf("the action while the other tab was busy: %s %s (%s), want the busy tab named as not armed", res.Outcome, res.Reason, res.Message)
	}
	// Once free, the busy tab runs the action's request to submit, and
	// says whether its submission went on.
	var log string
	waitFor(t, 60*time.Second, "the busy tab's handler", func() bool {
		var s string
		if busyTab.MainFrame().Call(ctx, browser.UtilityWorld, `function(){ return document.getElementById("log").textContent }`, &s) != nil {
			return false
		}
		log = s
		return strings.Contains(s, "tried")
	})
	switch {
	case strings.Contains(log, "stopped"):
		// Armed late, once the tab was free: stopped, not sent, and said.
		if n := posts(site, sub3); n != 0 {
			t.Errorf("the busy tab says its submission was stopped, and it was POSTed %d times", n)
		}
		seen := len(auditLines(t, auditPath))
		next := sv.Gate().Do(ctx, gate.Snapshot{})
		if !strings.Contains(next.Message, "After the previous action (browser_click)") || !strings.Contains(next.Message, "stopped its submit") {
			t.Errorf("the guard armed late in the busy tab stopped its submission, and the next result does not say so: %s", next.Message)
		}
		found := false
		for _, l := range auditLines(t, auditPath)[seen:] {
			found = found || (l.Event == audit.EventDenied && strings.Contains(l.Message, "after the action returned") && strings.HasSuffix(l.URL, "/busy-tab.html"))
		}
		if !found {
			t.Errorf("no audit line for the submission the guard stopped in the busy tab")
		}
	case strings.Contains(log, "sent"):
		waitFor(t, 20*time.Second, "the busy tab's submission", func() bool { return posts(site, sub3) > 0 })
		if !named {
			t.Errorf("the busy tab's marked form was POSTed and no result said the guard was not armed there")
		}
	default:
		t.Fatalf("the busy tab's log %q", log)
	}
	t.Logf("the busy tab's submission: %s; the action said %q", strings.TrimSpace(log), res.Message)
}
