package check_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/poppy-browser/poppy-browser/check"
)

// sarifDoc is what a SARIF viewer reads of the log.
type sarifDoc struct {
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name  string `json:"name"`
				Rules []struct {
					ID      string `json:"id"`
					HelpURI string `json:"helpUri"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Invocations []struct {
			ExecutionSuccessful bool `json:"executionSuccessful"`
			Notifications       []struct {
				Level   string `json:"level"`
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
			} `json:"toolExecutionNotifications"`
		} `json:"invocations"`
		Results []sarifResult `json:"results"`
	} `json:"runs"`
}

type sarifResult struct {
	RuleID    string `json:"ruleId"`
	RuleIndex int    `json:"ruleIndex"`
	Level     string `json:"level"`
	Message   struct {
		Text string `json:"text"`
	} `json:"message"`
	Locations []sarifLoc `json:"locations"`
}

type sarifLoc struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI string `json:"uri"`
		} `json:"artifactLocation"`
	} `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// sarifSchema is the SARIF 2.1.0 schema's required fields and enums for
// the objects the report writes (testdata/sarif-2.1.0-required.schema.json).
func sarifSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "sarif-2.1.0-required.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatalf("sarif schema: %v", err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatalf("resolving the sarif schema: %v", err)
	}
	return resolved
}

// validateSARIF writes rep as SARIF, validates it against the schema's
// required fields, and checks what a viewer shows: one result per finding
// at its page and element, each rule a requirement linked to its entry in
// docs/requirements.md.
func validateSARIF(t *testing.T, rep *check.Report) sarifDoc {
	t.Helper()
	var buf bytes.Buffer
	if err := rep.WriteSARIF(&buf); err != nil {
		t.Fatal(err)
	}
	var raw any
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatalf("sarif is not JSON: %v", err)
	}
	schema := sarifSchema(t)
	if err := schema.Validate(raw); err != nil {
		t.Fatalf("sarif does not match SARIF 2.1.0: %v\n%s", err, buf.String())
	}
	var doc sarifDoc
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != "2.1.0" || len(doc.Runs) != 1 {
		t.Fatalf("sarif version %q with %d runs, want 2.1.0 with one", doc.Version, len(doc.Runs))
	}
	run := doc.Runs[0]
	reqs, err := os.ReadFile(filepath.Join("..", "docs", "requirements.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range run.Tool.Driver.Rules {
		if rule.HelpURI != check.RequirementURL(rule.ID) {
			t.Errorf("rule %s: helpUri %q, want %q", rule.ID, rule.HelpURI, check.RequirementURL(rule.ID))
		}
		if !bytes.Contains(reqs, []byte(`<a id="`+rule.ID+`"></a>`)) {
			t.Errorf("rule %s: docs/requirements.md has no anchor for its helpUri", rule.ID)
		}
	}
	var want []sarifResult
	for _, p := range rep.Pages {
		for _, f := range p.Findings {
			r := sarifResult{RuleID: f.Requirement, Level: map[check.Severity]string{check.Error: "error", check.Warning: "warning", check.Info: "note"}[f.Severity]}
			r.Message.Text = f.Message
			r.Locations = make([]sarifLoc, 1)
			r.Locations[0].PhysicalLocation.ArtifactLocation.URI = p.URL
			if f.Selector != "" {
				r.Locations[0].LogicalLocations = []sarifLogical{{f.Selector, f.Where(), "element"}}
			}
			want = append(want, r)
		}
	}
	got := make([]sarifResult, len(run.Results))
	for i, r := range run.Results {
		if r.RuleIndex < 0 || r.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %d: ruleIndex %d does not point at rule %s", i, r.RuleIndex, r.RuleID)
		}
		r.RuleIndex = 0
		got[i] = r
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sarif results (-want +got):\n%s", diff)
	}
	if run.Invocations[0].ExecutionSuccessful != (rep.Failed == 0) {
		t.Errorf("executionSuccessful %v with %d page(s) not checked", run.Invocations[0].ExecutionSuccessful, rep.Failed)
	}
	return doc
}

// TestSARIF: the SARIF log of a run places each finding at its page and
// element, says a page could not be checked, and the schema's required
// fields hold; the schema itself rejects what SARIF does not allow.
func TestSARIF(t *testing.T) {
	rep := &check.Report{Pages: []check.PageReport{
		{URL: "https://shop.test/checkout", Status: check.StatusChecked, Checked: []string{"BC-4-attribute", "BC-4-mark-all"}, Findings: []check.Finding{
			{Severity: check.Error, Check: check.CheckSubmitPaths, Requirement: "BC-4-mark-all", Section: "4", Route: "click",
				Message: "Clicking button \"Apply\", which no mark covers, submits the form.", Element: `button "Apply"`,
				Selector: "#apply", FrameSelectors: []string{"iframe#pay"}, ShadowHosts: []string{"pay-box"}, HTML: `<button id="apply">`},
			{Severity: check.Warning, Check: check.CheckMarks, Requirement: "BC-4-values", Section: "4", Message: "unknown value", Selector: "div.x", HTML: "<div class=\"x\">"},
			{Severity: check.Info, Check: check.CheckController, Requirement: "BC-6-not-relied-on", Section: "6", Message: "the page reads the controller"},
		}},
		{URL: "https://shop.test/down", Status: check.StatusFailed, Error: "net::ERR_CONNECTION_REFUSED"},
	}, Failed: 1}
	doc := validateSARIF(t, rep)
	run := doc.Runs[0]
	var ids []string
	for _, r := range run.Tool.Driver.Rules {
		ids = append(ids, r.ID)
	}
	if diff := cmp.Diff([]string{"BC-4-attribute", "BC-4-values", "BC-4-mark-all", "BC-6-not-relied-on"}, ids); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	if got := run.Results[0].Locations[0].LogicalLocations[0].FullyQualifiedName; got != "iframe#pay >>> pay-box >>> #apply" {
		t.Errorf("the element in a frame's shadow tree is at %q", got)
	}
	if n := run.Invocations[0].Notifications; len(n) != 1 || n[0].Level != "error" || !strings.Contains(n[0].Message.Text, "ERR_CONNECTION_REFUSED") {
		t.Errorf("the page not checked: notifications %+v", n)
	}

	schema := sarifSchema(t)
	for name, bad := range map[string]string{
		"no version":     `{"runs": []}`,
		"version 2.0.0":  `{"version": "2.0.0", "runs": []}`,
		"no driver name": `{"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]}`,
		"level info":     `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"}, "level": "info"}]}]}`,
		"no message":     `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"ruleId": "r"}]}]}`,
		"empty location": `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"}, "locations": [{"physicalLocation": {}}]}]}]}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(bad), &v); err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(v); err == nil {
			t.Errorf("the SARIF schema accepted a log with %s", name)
		}
	}
}
