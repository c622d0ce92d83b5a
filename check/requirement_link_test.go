package check_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/check"
)

// TestHTMLLinksRequirements: a requirement ID in the HTML report is a link
// to its entry in docs/requirements.md, where a Company developer reads
// what it asks.
func TestHTMLLinksRequirements(t *testing.T) {
	rep := &check.Report{Pages: []check.PageReport{{
		URL:      "https://airline.test/",
		Findings: []check.Finding{{Severity: check.Error, Check: "marks", Requirement: "BC-4-mark-all", Section: "4", Message: "m"}},
	}}}
	var buf bytes.Buffer
	if err := rep.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	want := `<a href="` + check.RequirementsDoc + `#BC-4-mark-all">BC-4-mark-all</a>`
	if !strings.Contains(buf.String(), want) {
		t.Errorf("the report does not link the requirement: want %s in\n%s", want, buf.String())
	}
	if !strings.HasSuffix(check.RequirementsDoc, "/docs/requirements.md") {
		t.Errorf("RequirementsDoc %q is not docs/requirements.md", check.RequirementsDoc)
	}
}
