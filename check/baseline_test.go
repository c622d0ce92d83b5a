package check_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/check"
)

func baselineReport() *check.Report {
	return &check.Report{Pages: []check.PageReport{{URL: "https://shop.test/checkout?s=1", Status: check.StatusChecked, Checked: []string{"BC-4-mark-all"}, Findings: []check.Finding{
		{ID: "submit-route", Severity: check.Error, Check: check.CheckSubmitPaths, Requirement: "BC-4-mark-all", Section: "4", Message: "Clicking Apply submits the form.", Selector: "#apply", Route: "click"},
		{ID: "mark-unknown-value", Severity: check.Warning, Check: check.CheckMarks, Requirement: "BC-4-values", Section: "4", Message: "Unknown value.", Selector: "#x"},
	}}}}
}

// TestBaseline: a run given the baseline of an earlier run fails only on
// a new finding, whatever the messages now say; the outputs mark the
// accepted findings (JUnit passes them, SARIF says "unchanged").
func TestBaseline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "baseline.json")
	if err := baselineReport().WriteBaselineFile(path); err != nil {
		t.Fatal(err)
	}
	b, err := check.ReadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Findings) != 2 || strings.Contains(b.Findings[0].Page, "?") {
		t.Fatalf("baseline %+v: want two findings, pages without query", b.Findings)
	}

	same := baselineReport()
	same.Pages[0].URL = "https://shop.test/checkout?s=2" // another session, same page
	same.Pages[0].Findings[0].Message += " The checker confirmed it."
	if n := same.ApplyBaseline(b); n != 2 || same.ExitCode(check.Warning) != check.ExitClean {
		t.Errorf("the same findings: %d accepted, exit %d; want 2 and %d", n, same.ExitCode(check.Warning), check.ExitClean)
	}

	grown := baselineReport()
	grown.Pages[0].Findings = append(grown.Pages[0].Findings, check.Finding{ID: "submit-route", Severity: check.Error, Check: check.CheckSubmitPaths,
		Requirement: "BC-4-mark-all", Section: "4", Message: "Enter in the coupon submits the form.", Selector: "#coupon", Route: "Enter"})
	if n := grown.ApplyBaseline(b); n != 2 || grown.ExitCode(check.Error) != check.ExitFindings || grown.Counts.Baselined != 2 {
		t.Errorf("a new finding: %d accepted, exit %d, counts %+v; want 2 accepted and exit %d", n, grown.ExitCode(check.Error), grown.Counts, check.ExitFindings)
	}
	doc := readJUnit(t, grown, check.Warning)
	if doc.Failures != 1 {
		t.Errorf("junit failures=%d, want 1 (the new finding)", doc.Failures)
	}
	var buf bytes.Buffer
	if err := grown.WriteSARIF(&buf); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				BaselineState string `json:"baselineState"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, r := range log.Runs[0].Results {
		states = append(states, r.BaselineState)
	}
	if strings.Join(states, " ") != "unchanged unchanged new" {
		t.Errorf("SARIF baselineState %q, want unchanged unchanged new", states)
	}
	var text bytes.Buffer
	grown.WriteText(&text, check.Error)
	if !strings.Contains(text.String(), "(2 in the baseline)") {
		t.Errorf("the summary does not count the accepted findings:\n%s", text.String())
	}

	// No file yet: an empty baseline (the first --update-baseline writes it);
	// a file of another kind is refused.
	if b, err := check.ReadBaseline(filepath.Join(t.TempDir(), "none.json")); err != nil || len(b.Findings) != 0 {
		t.Errorf("a missing baseline: %+v %v, want an empty one", b, err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"schema": "something/else", "findings": []}`), 0o644)
	if _, err := check.ReadBaseline(bad); err == nil || !strings.Contains(err.Error(), "schema") {
		t.Errorf("a file of another schema: %v, want refused", err)
	}
}
