package check_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/check"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestWebMCPTools: check lists a page's WebMCP tools, and a declarative
// tool whose toolautosubmit submits a marked form is a finding
// (BC-4-fill-not-perform); an unmarked autosubmit form is none.
func TestWebMCPTools(t *testing.T) {
	c := newChecker(t, check.Options{NoProbe: true})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	u := testsite.WebMCPFixtureURL("declarative.html")
	rep, err := c.Run(ctx, []string{u})
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Pages[0]
	if p.Status != check.StatusChecked {
		t.Fatalf("status %s: %s", p.Status, p.Error)
	}
	want := []check.WebMCPTool{
		{Name: "search_flights", Kind: "declarative", Autosubmit: true, Form: "form"},
		{Name: "check_in_marked", Kind: "declarative", Autosubmit: true, Form: "form", Mark: "submission"},
		{Name: "pay", Kind: "declarative", Form: "form", Mark: "interaction"},
		{Name: "passport_details", Kind: "declarative", Form: "form", Mark: "submission"},
	}
	got := p.WebMCP
	for i := range got {
		if got[i].Form != "" {
			got[i].Form = "form" // its description is the scanner's; the test names the tool
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WebMCP tools (-want +got):\n%s", diff)
	}
	var findings []string
	for _, f := range p.Findings {
		if f.Check == check.CheckWebMCP {
			findings = append(findings, string(f.Severity)+" "+f.Requirement+" "+f.HTML)
		}
	}
	wantF := []string{`error BC-4-fill-not-perform <form id="checkin" toolname="check_in_marked" tooldescription="Check in with a seat." toolautosubmit action="submitted.html" method="get" data-poppy-user-step="submission">`}
	if diff := cmp.Diff(wantF, findings); diff != "" {
		t.Errorf("webmcp findings (-want +got):\n%s", diff)
	}
}

// TestWebMCPImperativeProbe: each imperative tool is called once on a
// fresh load with the guard armed; each tool whose script reaches a
// marked step is listed with that mark and is a finding.
func TestWebMCPImperativeProbe(t *testing.T) {
	c := newChecker(t, check.Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	rep, err := c.Run(ctx, []string{testsite.WebMCPFixtureURL("imperative.html")})
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Pages[0]
	if p.Status != check.StatusChecked {
		t.Fatalf("status %s: %s", p.Status, p.Error)
	}
	got := map[string]string{}
	for _, tl := range p.WebMCP {
		if tl.Kind != "imperative" {
			t.Errorf("%s is %s, want imperative", tl.Name, tl.Kind)
		}
		got[tl.Name] = string(tl.Mark)
	}
	want := map[string]string{"lookup_booking": "", "submit_marked": "submission", "submit_marked_plain": "submission",
		"click_marked_submitter": "submission", "accept_terms": "interaction", "set_passport": "interaction", "search_plain": "", "fail": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools and the marks their calls reached (-want +got):\n%s", diff)
	}
	n := 0
	for _, f := range p.Findings {
		if f.Check == check.CheckWebMCP {
			n++
			// Nothing was filled: the tool is a way to the step no mark
			// can cover.
			if f.Requirement != "BC-4-mark-all" || f.ID != "webmcp-tool-takes-step" {
				t.Errorf("an imperative tool's finding cites %s (%s), want BC-4-mark-all (webmcp-tool-takes-step)", f.Requirement, f.ID)
			}
		}
	}
	if n != 5 {
		t.Errorf("%d webmcp findings, want 5 (one per tool that reached a marked step)", n)
	}
}
