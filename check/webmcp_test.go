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
	wantF := []string{`warning BC-4-fill-not-perform <form id="checkin" toolname="check_in_marked" tooldescription="Check in with a seat." toolautosubmit action="submitted.html" method="get" data-poppy-user-step="submission">`}
	if diff := cmp.Diff(wantF, findings); diff != "" {
		t.Errorf("webmcp findings (-want +got):\n%s", diff)
	}
}
