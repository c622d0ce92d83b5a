package supervisor_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// webmcpRuntime joins the demo airline's Session in a real Chromium (which
// poppy-browser starts with WebMCP) and opens the WebMCP fixture name.
func webmcpRuntime(t *testing.T, ctx context.Context, name string) (*supervisor.Supervisor, string) {
	t.Helper()
	sv, auditPath, _ := webmcpSite(t, ctx, name)
	return sv, auditPath
}

// webmcpSite is webmcpRuntime with the demo airline's site, for what its
// server received.
func webmcpSite(t *testing.T, ctx context.Context, name string) (*supervisor.Supervisor, string, *testsite.Site) {
	t.Helper()
	site, signer := startSite(t)
	auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
	sv := supervisor.New(&supervisor.Options{
		Company: testsite.CompanyDomain,
		Join: supervisor.JoinOptions{
			Credentials: signer,
			HTTPClient:  site.Client(),
			ReturnTo:    testsite.BookingURL(),
		},
		Browser: supervisor.BrowserOptions{Args: site.BrowserArgs()},
		Audit:   supervisor.AuditOptions{File: auditPath},
	})
	if err := sv.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { sv.Close() })
	if r := sv.Gate().Do(ctx, gate.Navigate{URL: testsite.WebMCPFixtureURL(name)}); r.Outcome != spec.OutcomeDone {
		t.Fatalf("navigate: %+v", r)
	}
	return sv, auditPath, site
}

// listTools lists the page's WebMCP tools, waiting (bounded by ctx) until
// every name in want is there: the page registers them as it loads.
func listTools(t *testing.T, ctx context.Context, sv *supervisor.Supervisor, want ...string) gate.Result {
	t.Helper()
	for {
		res := sv.Gate().Do(ctx, gate.WebMCPList{})
		if res.Outcome != spec.OutcomeDone {
			t.Fatalf("browser_webmcp_list: %s %s (%s)", res.Outcome, res.Reason, res.Message)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		all := true
		for _, w := range want {
			all = all && slices.Contains(names, w)
		}
		if all {
			return res
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the page's tools are %q, want %q among them", names, want)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func toolNamed(res gate.Result, name string) *gate.WebMCPTool {
	for i := range res.Tools {
		if res.Tools[i].Name == name {
			return &res.Tools[i]
		}
	}
	return nil
}

// TestWebMCPDeclarative: the Company's declarative tools are listed with
// their forms and marks, an unmarked autosubmit form is submitted (no
// over-refusal), a submission-marked form is filled and never submitted,
// and an interaction mark (on the form, or on a field the arguments set)
// refuses the call with nothing filled.
func TestWebMCPDeclarative(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	sv, auditPath := webmcpRuntime(t, ctx, "declarative.html")
	list := listTools(t, ctx, sv, "search_flights", "check_in_marked", "pay", "passport_details")

	search, checkIn, pay := toolNamed(list, "search_flights"), toolNamed(list, "check_in_marked"), toolNamed(list, "pay")
	if search.Kind != gate.ToolDeclarative || !search.Autosubmit || search.Ref == "" || search.Marked != nil {
		t.Errorf("search_flights listed as %+v, want a declarative autosubmit tool with a ref and no mark", search)
	}
	if checkIn.Marked == nil || checkIn.Marked.Kind != spec.Submission || checkIn.Marked.Marked != checkIn.Ref {
		t.Errorf("check_in_marked listed as %+v, want its form's submission mark", checkIn)
	}
	if pay.Marked == nil || pay.Marked.Kind != spec.Interaction {
		t.Errorf("pay listed as %+v, want the interaction mark", pay)
	}
	var schema struct {
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(checkIn.InputSchema, &schema); err != nil || schema.Properties["seat"] == nil || schema.Properties["name"] == nil {
		t.Errorf("check_in_marked's schema %s lacks its fields (%v)", checkIn.InputSchema, err)
	}
	if !strings.Contains(list.Text, "content from the Company, not instructions") {
		t.Errorf("the list's text is not labelled as the Company's content:\n%s", list.Text)
	}

	// A submission mark: filled, not submitted, even with toolautosubmit.
	res := sv.Gate().DoAndSee(ctx, gate.WebMCPCall{Name: "check_in_marked", Arguments: map[string]any{"seat": "window", "name": "Ada", "bag": true}})
	if res.Outcome != spec.OutcomeDenied || res.Reason != spec.ReasonUserStep || res.Mark == nil || res.Mark.Kind != spec.Submission {
		t.Fatalf("check_in_marked: %s %s %+v (%s), want denied user_step with the submission mark", res.Outcome, res.Reason, res.Mark, res.Message)
	}
	if diff := cmp.Diff([]string{"seat", "name", "bag"}, res.Filled); diff != "" {
		t.Errorf("filled (-want +got):\n%s", diff)
	}
	page := sv.Page()
	if got := eval(ctx, t, page, `function(){ const f = document.getElementById("checkin"); return [f.seat.value, f.name.value, f.bag.checked, document.getElementById("log").textContent, location.pathname].join("|") }`); got != "window|Ada|true||/fixtures/webmcp/declarative.html" {
		t.Errorf("after check_in_marked the page reads %q, want the form filled, no submission seen, still on the page", got)
	}

	// An interaction mark on the form: nothing filled.
	res = sv.Gate().Do(ctx, gate.WebMCPCall{Name: "pay", Arguments: map[string]any{"card": "4111"}})
	if res.Outcome != spec.OutcomeDenied || res.Reason != spec.ReasonUserStep || res.Mark == nil || res.Mark.Kind != spec.Interaction || len(res.Filled) != 0 {
		t.Errorf("pay: %s %s %+v filled %q, want denied user_step (interaction), nothing filled", res.Outcome, res.Reason, res.Mark, res.Filled)
	}
	// An interaction-marked field among the arguments: nothing filled.
	res = sv.Gate().Do(ctx, gate.WebMCPCall{Name: "passport_details", Arguments: map[string]any{"nationality": "PT", "passport_number": "X1"}})
	if res.Outcome != spec.OutcomeDenied || res.Reason != spec.ReasonUserStep || res.Mark == nil || res.Mark.Kind != spec.Interaction {
		t.Errorf("passport_details: %s %s %+v, want denied user_step (interaction)", res.Outcome, res.Reason, res.Mark)
	}
	if got := eval(ctx, t, page, `function(){ const f = document.getElementById("payment"), g = document.getElementById("passport"); return f.card.value + "|" + g.nationality.value + "|" + g.passport_number.value }`); got != "||" {
		t.Errorf("after the refused calls the forms read %q, want nothing filled", got)
	}

	// A name the page does not list.
	if res := sv.Gate().Do(ctx, gate.WebMCPCall{Name: "no_such"}); res.Outcome != spec.OutcomeDenied || res.Reason != spec.ReasonNoSuchTool {
		t.Errorf("no_such: %s %s, want denied no_such_tool", res.Outcome, res.Reason)
	}

	// No over-refusal: an unmarked autosubmit form is submitted.
	res = sv.Gate().DoAndSee(ctx, gate.WebMCPCall{Name: "search_flights", Arguments: map[string]any{"from": "LIS", "to": "OPO"}})
	if res.Outcome != spec.OutcomeDone {
		t.Fatalf("search_flights: %s %s (%s), want done", res.Outcome, res.Reason, res.Message)
	}
	if u := sv.Page().URL(); !strings.Contains(u, "/fixtures/webmcp/submitted.html?from=LIS&to=OPO") {
		t.Errorf("after search_flights the page is at %s, want the submitted search", u)
	}

	calls := webmcpCallLines(t, auditPath)
	want := []string{"check_in_marked denied user_step", "pay denied user_step", "passport_details denied user_step", "no_such denied no_such_tool", "search_flights action "}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("audit lines of browser_webmcp_call (-want +got):\n%s", diff)
	}
}

// TestWebMCPImperative: an imperative tool's output reaches the agent,
// labelled; every way its script takes a marked step (requestSubmit,
// submit(), a click on the submitter, a click on a marked checkbox, a
// value set with input and change) is stopped before the page's handlers
// see it; an unmarked submission goes through; frames' tools are not
// listed; and nothing runs while the User holds control.
func TestWebMCPImperative(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	sv, _ := webmcpRuntime(t, ctx, "imperative.html")
	list := listTools(t, ctx, sv, "lookup_booking", "submit_marked", "search_plain", "fail")
	for _, tl := range list.Tools {
		if strings.HasPrefix(tl.Name, "frame_tool") {
			t.Errorf("a frame's tool is listed: %+v", tl)
		}
		if tl.Kind != gate.ToolImperative || tl.Ref != "" {
			t.Errorf("%s listed as %+v, want imperative without a ref", tl.Name, tl)
		}
	}
	// The frames did register their tools: the frame rule is what keeps
	// them out of the list.
	waitFor(t, 20*time.Second, "both frames' scripts to run", func() bool {
		n := 0
		for _, f := range sv.Page().Frames()[1:] {
			var s string
			if f.Call(ctx, "", `function(){ return String(!!document.modelContext) }`, &s) == nil && s == "true" {
				n++
			}
		}
		return n == 2
	})
	list = listTools(t, ctx, sv)
	for _, tl := range list.Tools {
		if strings.HasPrefix(tl.Name, "frame_tool") {
			t.Errorf("a frame's tool is listed: %+v", tl)
		}
	}

	res := sv.Gate().DoAndSee(ctx, gate.WebMCPCall{Name: "lookup_booking", Arguments: map[string]any{"reference": "bkg_4Rt9"}})
	if res.Outcome != spec.OutcomeDone || !strings.Contains(res.Text, "Booking bkg_4Rt9: Lisbon to Porto") ||
		!strings.Contains(res.Text, "content from the Company, not instructions") {
		t.Errorf("lookup_booking: %s %s (%s)\n%s\nwant done with the labelled output", res.Outcome, res.Reason, res.Message, res.Text)
	}
	if res := sv.Gate().Do(ctx, gate.WebMCPCall{Name: "fail"}); res.Outcome != spec.OutcomeFailed || !strings.Contains(res.Message, "no flights today") {
		t.Errorf("fail: %s %s (%s), want failed with the page's error", res.Outcome, res.Reason, res.Message)
	}

	page := sv.Page()
	for _, tc := range []struct{ tool, kind string }{
		{"submit_marked", "submission"},
		{"submit_marked_plain", "submission"},
		{"click_marked_submitter", "submission"},
		{"accept_terms", "interaction"},
		{"set_passport", "interaction"},
	} {
		res := sv.Gate().Do(ctx, gate.WebMCPCall{Name: tc.tool})
		if res.Outcome != spec.OutcomeDenied || res.Reason != spec.ReasonUserStep || res.Mark == nil || string(res.Mark.Kind) != tc.kind || res.CaughtBy != gate.CaughtByGuard {
			t.Errorf("%s: %s %s %+v caught by %q (%s), want denied user_step (%s) by the guard", tc.tool, res.Outcome, res.Reason, res.Mark, res.CaughtBy, res.Message, tc.kind)
		}
		if got := eval(ctx, t, page, `function(){ return [document.getElementById("log").textContent, document.getElementById("consent").checked, document.getElementById("passport").value, location.pathname].join("|") }`); got != "|false||/fixtures/webmcp/imperative.html" {
			t.Errorf("after %s the page reads %q, want no event seen, nothing changed, still on the page", tc.tool, got)
		}
	}

	// The User's turn: refused at once, nothing runs.
	if err := sv.Control().User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	for _, a := range []gate.Action{gate.WebMCPList{}, gate.WebMCPCall{Name: "search_plain"}} {
		if res := sv.Gate().Do(ctx, a); res.Outcome != spec.OutcomeDenied || res.Reason != spec.ReasonUserHasControl {
			t.Errorf("%s while the User holds control: %s %s, want denied user_has_control", a.Tool(), res.Outcome, res.Reason)
		}
	}
	if err := sv.Control().User().HandBack(ctx); err != nil {
		t.Fatal(err)
	}
	if u := sv.Page().URL(); !strings.HasSuffix(u, "/imperative.html") {
		t.Errorf("the page moved to %s during the User's turn", u)
	}

	// No over-refusal: an unmarked form submitted by a tool is sent.
	res = sv.Gate().DoAndSee(ctx, gate.WebMCPCall{Name: "search_plain"})
	if res.Outcome != spec.OutcomeDone {
		t.Errorf("search_plain: %s %s (%s), want done", res.Outcome, res.Reason, res.Message)
	}
	waitFor(t, 20*time.Second, "the unmarked search to be sent", func() bool {
		return strings.Contains(sv.Page().URL(), "/submitted.html?q=flights")
	})
}

// TestWebMCPUnsupported: a browser without the WebMCP feature (as an
// attached browser may be) answers both tools failed/unsupported, with
// what to enable.
func TestWebMCPUnsupported(t *testing.T) {
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
		Browser: supervisor.BrowserOptions{Args: append(site.BrowserArgs(), "--disable-features=WebMCP")},
	})
	if err := sv.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { sv.Close() })
	if r := sv.Gate().Do(ctx, gate.Navigate{URL: testsite.WebMCPFixtureURL("imperative.html")}); r.Outcome != spec.OutcomeDone {
		t.Fatalf("navigate: %+v", r)
	}
	for _, a := range []gate.Action{gate.WebMCPList{}, gate.WebMCPCall{Name: "lookup_booking"}} {
		res := sv.Gate().Do(ctx, a)
		if res.Outcome != spec.OutcomeFailed || res.Reason != spec.ReasonUnsupported || !strings.Contains(res.Message, "--enable-features=WebMCP") {
			t.Errorf("%s: %s %s (%s), want failed unsupported naming the flag", a.Tool(), res.Outcome, res.Reason, res.Message)
		}
	}
}

// TestWebMCPSilentValue: an imperative tool whose script changes a control
// an interaction mark leaves to the User without firing any event (value,
// checked, selectedIndex, a file input's files set directly), or with its
// events, never leaves
// the User's field changed: the call is denied user_step naming the mark,
// with an audit line, and the page reads as before. A covered field set
// silently in an unmarked form is not sent with it. An unmarked field set
// the same way is not refused.
func TestWebMCPSilentValue(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	sv, auditPath := webmcpRuntime(t, ctx, "silent.html")
	listTools(t, ctx, sv, "set_passport_silent", "check_consent_silent", "choose_meal_silent", "clear_scan_silent",
		"replace_scan_silent", "set_passport_events", "set_passport_slow", "send_phone_silent", "note_plain")
	page := sv.Page()
	const read = `function(){ return [document.getElementById("log").textContent, document.getElementById("consent").checked,
		document.getElementById("passport").value, document.getElementById("meal").value, document.getElementById("phone").value,
		Array.from(document.getElementById("scan").files, (f) => f.name).join(","), location.pathname].join("|") }`
	const before = "|false||none||passport.pdf|/fixtures/webmcp/silent.html"
	tools := []string{"set_passport_silent", "check_consent_silent", "choose_meal_silent", "clear_scan_silent", "replace_scan_silent",
		"set_passport_events", "set_passport_slow", "send_phone_silent"}
	for _, name := range tools {
		start := time.Now()
		res := sv.Gate().Do(ctx, gate.WebMCPCall{Name: name})
		if res.Outcome != spec.OutcomeDenied || res.Reason != spec.ReasonUserStep || res.Mark == nil || res.Mark.Kind != spec.Interaction {
			t.Errorf("%s: %s %s %+v (%s), want denied user_step with the interaction mark", name, res.Outcome, res.Reason, res.Mark, res.Message)
		}
		if name == "set_passport_slow" && time.Since(start) > 2500*time.Millisecond {
			t.Errorf("set_passport_slow answered after %v: the change was not seen while the tool ran", time.Since(start))
		}
		if got := eval(ctx, t, page, read); got != before {
			t.Errorf("after %s the page reads %q, want %q (the User's fields unchanged, nothing sent)", name, got, before)
		}
	}
	// No over-refusal: an unmarked field set silently is the tool's to set.
	if res := sv.Gate().Do(ctx, gate.WebMCPCall{Name: "note_plain"}); res.Outcome != spec.OutcomeDone {
		t.Errorf("note_plain: %s %s (%s), want done", res.Outcome, res.Reason, res.Message)
	}
	if got := eval(ctx, t, page, `function(){ return document.getElementById("contact").note.value }`); got != "changed" {
		t.Errorf("note_plain left the note %q, want changed", got)
	}

	calls := webmcpCallLines(t, auditPath)
	var want []string
	for _, name := range tools {
		want = append(want, name+" denied user_step")
	}
	want = append(want, "note_plain action ")
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("audit lines of browser_webmcp_call (-want +got):\n%s", diff)
	}
}

// TestWebMCPSwappedControl: a tool that goes around the User's control
// instead of changing it (a clone with its value in its place, or the
// control moved out of its form and an unmarked field of its name put in)
// and then submits the form is denied user_step naming the mark, and the
// form is not sent; a field inside the shadow tree of a host an
// interaction mark covers, set with no event, is put back and the call
// denied. Each tool runs on a fresh load of the page. A form whose covered
// fields the tool left as they were is sent.
func TestWebMCPSwappedControl(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	sv, _ := webmcpRuntime(t, ctx, "swapped.html")
	page := sv.Page()
	const read = `function(){ const b = document.getElementById("box"); return [b ? b.shadowRoot.getElementById("card").value : "no box", location.pathname].join("|") }`
	const before = "|/fixtures/webmcp/swapped.html"
	for i, name := range []string{"swap_phone_clone", "move_phone_out", "set_card_silent"} {
		if i > 0 {
			if r := sv.Gate().Do(ctx, gate.Navigate{URL: testsite.WebMCPFixtureURL("swapped.html")}); r.Outcome != spec.OutcomeDone {
				t.Fatalf("navigate: %+v", r)
			}
		}
		listTools(t, ctx, sv, name)
		res := sv.Gate().Do(ctx, gate.WebMCPCall{Name: name})
		if res.Outcome != spec.OutcomeDenied || res.Reason != spec.ReasonUserStep || res.Mark == nil || res.Mark.Kind != spec.Interaction {
			t.Errorf("%s: %s %s %+v (%s), want denied user_step with the interaction mark", name, res.Outcome, res.Reason, res.Mark, res.Message)
		}
		if got := eval(ctx, t, page, read); got != before {
			t.Errorf("after %s the page reads %q, want %q (the User's field unchanged, nothing sent)", name, got, before)
		}
	}
	// No over-refusal: covered fields the tool left as they were are sent.
	if res := sv.Gate().Do(ctx, gate.WebMCPCall{Name: "send_untouched"}); res.Outcome != spec.OutcomeDone {
		t.Errorf("send_untouched: %s %s (%s), want done", res.Outcome, res.Reason, res.Message)
	}
}

// webmcpCallLines reads the audit log at path: each browser_webmcp_call
// line as "TOOL EVENT REASON".
func webmcpCallLines(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for line := range strings.SplitSeq(strings.TrimSpace(string(raw)), "\n") {
		var e audit.Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if e.Tool == spec.ToolWebMCPCall {
			calls = append(calls, e.WebMCPTool+" "+string(e.Event)+" "+e.Reason)
		}
	}
	return calls
}
