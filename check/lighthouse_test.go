package check_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/poppy-browser/poppy-browser/check"
)

type lhrDoc struct {
	LighthouseVersion string `json:"lighthouseVersion"`
	RequestedURL      string `json:"requestedUrl"`
	RuntimeError      *struct {
		Code string `json:"code"`
	} `json:"runtimeError"`
	Audits map[string]struct {
		ID               string   `json:"id"`
		Title            string   `json:"title"`
		Score            *float64 `json:"score"`
		ScoreDisplayMode string   `json:"scoreDisplayMode"`
		Details          *struct {
			Items []struct {
				Node *struct {
					Selector string `json:"selector"`
					Snippet  string `json:"snippet"`
				} `json:"node"`
			} `json:"items"`
		} `json:"details"`
	} `json:"audits"`
	Categories map[string]struct {
		Score     *float64 `json:"score"`
		AuditRefs []struct {
			ID     string  `json:"id"`
			Weight float64 `json:"weight"`
		} `json:"auditRefs"`
	} `json:"categories"`
}

// TestLighthouse: the Lighthouse-shaped result has the browser-control
// category and an audit per kind of finding, scored error 0, warning
// 0.5, info informative, a pass 1, and not applicable when the check did
// not run (no --fill; a browser without WebMCP) — never a pass.
func TestLighthouse(t *testing.T) {
	no := false
	page := check.PageReport{URL: "https://shop.test/checkout", Status: check.StatusChecked, WebMCPSupported: &no, Findings: []check.Finding{
		{ID: "submit-route", Severity: check.Error, Check: check.CheckSubmitPaths, Requirement: "BC-4-mark-all", Message: "A way out.", Selector: "#apply", HTML: `<button id="apply">`},
		{ID: "mark-unknown-value", Severity: check.Warning, Check: check.CheckMarks, Requirement: "BC-4-values", Message: "Unknown value."},
		{ID: "controller-read", Severity: check.Info, Check: check.CheckController, Requirement: "BC-8.2-not-a-guarantee", Message: "Reads it."},
	}}
	rep := &check.Report{Options: check.ReportFlags{Discovery: true, Probe: true}, Pages: []check.PageReport{page}}
	var buf bytes.Buffer
	if err := rep.WriteLighthouse(&buf); err != nil {
		t.Fatal(err)
	}
	var lhr lhrDoc
	if err := json.Unmarshal(buf.Bytes(), &lhr); err != nil {
		t.Fatal(err)
	}
	cat, ok := lhr.Categories[check.LighthouseCategory]
	if !ok || cat.Score == nil || lhr.LighthouseVersion == "" || lhr.RequestedURL != page.URL {
		t.Fatalf("no scored browser-control category: %s", buf.String())
	}
	score := func(id string) (string, *float64) { a := lhr.Audits[id]; return a.ScoreDisplayMode, a.Score }
	for id, want := range map[string]struct {
		mode  string
		score float64 // -1: none
	}{
		"submit-route":             {"binary", 0},
		"mark-unknown-value":       {"binary", 0.5},
		"controller-read":          {"informative", -1},
		"mark-covers-nothing":      {"binary", 1},
		"fill-submits":             {"notApplicable", -1},
		"webmcp-autosubmit-marked": {"notApplicable", -1},
	} {
		mode, s := score(id)
		switch {
		case mode != want.mode:
			t.Errorf("%s: scoreDisplayMode %q, want %q", id, mode, want.mode)
		case want.score < 0 && s != nil, want.score >= 0 && (s == nil || *s != want.score):
			t.Errorf("%s: score %v, want %v", id, s, want.score)
		}
	}
	if d := lhr.Audits["submit-route"].Details; d == nil || len(d.Items) != 1 || d.Items[0].Node == nil || d.Items[0].Node.Selector != "#apply" {
		t.Errorf("submit-route details do not point at the element: %+v", d)
	}
	refs := map[string]bool{}
	for _, r := range cat.AuditRefs {
		if refs[r.ID] {
			t.Errorf("audit %s referenced twice", r.ID)
		}
		refs[r.ID] = true
		if _, ok := lhr.Audits[r.ID]; !ok {
			t.Errorf("auditRef %s has no audit", r.ID)
		}
	}
	for _, k := range check.FindingIDs() {
		if !refs[k.ID] {
			t.Errorf("finding kind %s is no audit", k.ID)
		}
	}
	// The category's score weighs the binary audits only: with a failed
	// one it is below 1.
	if *cat.Score >= 1 {
		t.Errorf("category score %v with an error", *cat.Score)
	}

	// Several pages: a flow result, a step per page; a page not checked
	// has a runtime error and no score.
	rep.Pages = append(rep.Pages, check.PageReport{URL: "https://shop.test/down", Status: check.StatusFailed, Error: "HTTP 500"})
	buf.Reset()
	if err := rep.WriteLighthouse(&buf); err != nil {
		t.Fatal(err)
	}
	var flow struct {
		Steps []struct {
			LHR  lhrDoc `json:"lhr"`
			Name string `json:"name"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(buf.Bytes(), &flow); err != nil || len(flow.Steps) != 2 {
		t.Fatalf("flow result: %v, %d steps", err, len(flow.Steps))
	}
	if down := flow.Steps[1].LHR; down.RuntimeError == nil || down.Categories[check.LighthouseCategory].Score != nil {
		t.Errorf("the page not checked: runtimeError %v, score %v", down.RuntimeError, down.Categories[check.LighthouseCategory].Score)
	}
}
