package check_test

import (
	"bytes"
	"encoding/xml"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poppy-browser/poppy-browser/check"
)

// junitDoc is what a CI reads of a JUnit file.
type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Skipped  int `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error     *struct{} `xml:"error"`
			Skipped   *struct{} `xml:"skipped"`
			SystemOut string    `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(t *testing.T, rep *check.Report, failOn check.Severity) junitDoc {
	t.Helper()
	var buf bytes.Buffer
	if err := rep.WriteJUnit(&buf, failOn); err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("junit is not XML: %v\n%s", err, buf.String())
	}
	return doc
}

// TestJUnitCases: the JUnit file has one test case per finding, failed
// when the finding reaches --fail-on (so four errors read failures="4"),
// one passing case per requirement checked on the page with no failed
// finding, a skipped case per requirement not checked, and no name twice
// in a suite (a requirement both skipped and cited, two findings alike).
func TestJUnitCases(t *testing.T) {
	mark := func(sel string) check.Finding {
		return check.Finding{Severity: check.Error, Check: check.CheckSubmitPaths, Requirement: "BC-4-mark-all", Message: "a way out " + sel, Selector: sel, Route: "click"}
	}
	rep := &check.Report{Pages: []check.PageReport{
		{URL: "https://shop.test/a", Status: check.StatusChecked,
			Checked: []string{"BC-4-attribute", "BC-4-mark-all", "BC-4-values"}, Skipped: []string{"BC-3-poppy-json", "BC-4-fill-not-perform"},
			Findings: []check.Finding{
				mark("#apply"), mark("#quick"), mark("#other"), mark("#other"),
				{Severity: check.Warning, Check: check.CheckMarks, Requirement: "BC-4-values", Message: "unknown value", Element: `div "x"`},
				{Severity: check.Info, Check: check.CheckDiscovery, Requirement: "BC-3-poppy-json", Message: "a development host"},
			}},
		{URL: "https://shop.test/b", Status: check.StatusChecked, Checked: []string{"BC-4-attribute", "BC-4-mark-all"}},
		{URL: "https://shop.test/c", Status: check.StatusFailed, Error: "HTTP 500"},
	}}
	const (
		apply  = "BC-4-mark-all submit-paths at #apply (click)"
		quick  = "BC-4-mark-all submit-paths at #quick (click)"
		other  = "BC-4-mark-all submit-paths at #other (click)"
		other2 = "BC-4-mark-all submit-paths at #other (click) #2"
		values = `BC-4-values marks on div "x"`
		disc   = "BC-3-poppy-json discovery"
	)
	for _, tc := range []struct {
		failOn   check.Severity
		want     []string // page case outcome
		failures int
	}{
		{check.Error, []string{
			"a " + apply + " fail", "a " + quick + " fail", "a " + other + " fail", "a " + other2 + " fail",
			"a " + values + " pass", "a " + disc + " pass",
			"a BC-4-attribute pass", "a BC-4-values pass", "a BC-3-poppy-json skipped", "a BC-4-fill-not-perform skipped",
			"b BC-4-attribute pass", "b BC-4-mark-all pass", "c page error"}, 4},
		{check.Warning, []string{
			"a " + apply + " fail", "a " + quick + " fail", "a " + other + " fail", "a " + other2 + " fail",
			"a " + values + " fail", "a " + disc + " pass",
			"a BC-4-attribute pass", "a BC-3-poppy-json skipped", "a BC-4-fill-not-perform skipped",
			"b BC-4-attribute pass", "b BC-4-mark-all pass", "c page error"}, 5},
		{check.Info, []string{
			"a " + apply + " fail", "a " + quick + " fail", "a " + other + " fail", "a " + other2 + " fail",
			"a " + values + " fail", "a " + disc + " fail",
			"a BC-4-attribute pass", "a BC-3-poppy-json skipped", "a BC-4-fill-not-perform skipped",
			"b BC-4-attribute pass", "b BC-4-mark-all pass", "c page error"}, 6},
	} {
		t.Run(string(tc.failOn), func(t *testing.T) {
			doc := readJUnit(t, rep, tc.failOn)
			var got []string
			fails, cases := 0, 0
			for _, s := range doc.Suites {
				seen := map[string]bool{}
				suiteFails := 0
				for _, c := range s.Cases {
					cases++
					if seen[c.Name] {
						t.Errorf("suite %s: case %q twice", s.Name, c.Name)
					}
					seen[c.Name] = true
					if c.Classname != s.Name {
						t.Errorf("case %q: classname %q, want the page %q", c.Name, c.Classname, s.Name)
					}
					outcome := "pass"
					switch {
					case c.Failure != nil:
						outcome = "fail"
						fails++
						suiteFails++
						if c.Failure.Message == "" || c.Failure.Text == "" {
							t.Errorf("case %q: a failure without its message", c.Name)
						}
					case c.Error != nil:
						outcome = "error"
					case c.Skipped != nil:
						outcome = "skipped"
					}
					got = append(got, s.Name[len(s.Name)-1:]+" "+c.Name+" "+outcome)
				}
				if s.Failures != suiteFails || s.Tests != len(s.Cases) {
					t.Errorf("suite %s: tests=%d failures=%d, but %d cases and %d failed", s.Name, s.Tests, s.Failures, len(s.Cases), suiteFails)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("test cases with --fail-on %s (-want +got):\n%s", tc.failOn, diff)
			}
			if fails != tc.failures || doc.Failures != tc.failures || doc.Tests != cases || doc.Errors != 1 || doc.Skipped != 2 {
				t.Errorf("totals tests=%d failures=%d errors=%d skipped=%d; want %d cases, %d failures (one a finding at least %s), 1 error, 2 skipped",
					doc.Tests, doc.Failures, doc.Errors, doc.Skipped, cases, tc.failures, tc.failOn)
			}
		})
	}
}

// TestJUnitStableNames: the same report gives the same case names, so a
// CI tracks a finding from one run to the next.
func TestJUnitStableNames(t *testing.T) {
	rep := &check.Report{Pages: []check.PageReport{{URL: "https://shop.test/a", Status: check.StatusChecked,
		Findings: []check.Finding{{Severity: check.Error, Check: check.CheckFill, Requirement: "BC-4-fill-not-perform", Message: "filling submits", Selector: "#amount"}}}}}
	var a, b bytes.Buffer
	if err := rep.WriteJUnit(&a, check.Error); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJUnit(&b, check.Error); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("two writes differ:\n%s\n%s", a.String(), b.String())
	}
}
