package supervisor_test

import (
	"context"
	"testing"
	"time"

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
