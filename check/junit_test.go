package check_test

import (
	"bytes"
	"encoding/xml"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poppy-browser/poppy-browser/check"
)

// TestJUnitCases: the JUnit file has one test case per requirement per
// page, a requirement a finding cites included even when no check lists
// it, and a case fails for the findings at least as severe as --fail-on.
func TestJUnitCases(t *testing.T) {
	rep := &check.Report{Pages: []check.PageReport{
		{URL: "https://shop.test/a", Status: check.StatusChecked, Checked: []string{"BC-4-attribute", "BC-4-mark-all"}, Skipped: []string{"BC-3-poppy-json"},
			Findings: []check.Finding{
				{Severity: check.Error, Requirement: "BC-4-mark-all", Message: "apply submits"},
				{Severity: check.Warning, Requirement: "BC-4-values", Message: "unknown value"},
				{Severity: check.Info, Requirement: "BC-4-attribute", Message: "why not a warning"},
			}},
		{URL: "https://shop.test/b", Status: check.StatusChecked, Checked: []string{"BC-4-attribute", "BC-4-mark-all"}},
		{URL: "https://shop.test/c", Status: check.StatusFailed, Error: "HTTP 500"},
	}}
	for _, tc := range []struct {
		failOn check.Severity
		want   []string // page requirement outcome
	}{
		{check.Error, []string{
			"a BC-4-attribute pass", "a BC-4-mark-all fail", "a BC-4-values pass", "a BC-3-poppy-json skipped",
			"b BC-4-attribute pass", "b BC-4-mark-all pass", "c page error"}},
		{check.Warning, []string{
			"a BC-4-attribute pass", "a BC-4-mark-all fail", "a BC-4-values fail", "a BC-3-poppy-json skipped",
			"b BC-4-attribute pass", "b BC-4-mark-all pass", "c page error"}},
		{check.Info, []string{
			"a BC-4-attribute fail", "a BC-4-mark-all fail", "a BC-4-values fail", "a BC-3-poppy-json skipped",
			"b BC-4-attribute pass", "b BC-4-mark-all pass", "c page error"}},
	} {
		t.Run(string(tc.failOn), func(t *testing.T) {
			var buf bytes.Buffer
			if err := rep.WriteJUnit(&buf, tc.failOn); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Suites []struct {
					Name  string `xml:"name,attr"`
					Cases []struct {
						Name    string    `xml:"name,attr"`
						Failure *struct{} `xml:"failure"`
						Error   *struct{} `xml:"error"`
						Skipped *struct{} `xml:"skipped"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			var got []string
			fails := 0
			for _, s := range doc.Suites {
				for _, c := range s.Cases {
					outcome := "pass"
					switch {
					case c.Failure != nil:
						outcome = "fail"
						fails++
					case c.Error != nil:
						outcome = "error"
					case c.Skipped != nil:
						outcome = "skipped"
					}
					got = append(got, s.Name[len(s.Name)-1:]+" "+c.Name+" "+outcome)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("test cases with --fail-on %s (-want +got):\n%s", tc.failOn, diff)
			}
			if fails == 0 || fails != countFailures(buf.Bytes()) {
				t.Errorf("failures attribute does not count the %d failed cases:\n%s", fails, buf.String())
			}
		})
	}
}

// countFailures reads the testsuites element's failures attribute.
func countFailures(data []byte) int {
	var doc struct {
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		return -1
	}
	return doc.Failures
}
