package check_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/poppy-browser/poppy-browser/check"
)

// sarifDoc is what a SARIF viewer and GitHub code scanning read of the log.
type sarifDoc struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name            string `json:"name"`
				Version         string `json:"version"`
				SemanticVersion string `json:"semanticVersion"`
				Rules           []struct {
					ID               string    `json:"id"`
					Name             string    `json:"name"`
					HelpURI          string    `json:"helpUri"`
					ShortDescription *sarifMsg `json:"shortDescription"`
					FullDescription  *sarifMsg `json:"fullDescription"`
					Help             *sarifMsg `json:"help"`
					Properties       struct {
						Tags []string `json:"tags"`
					} `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Invocations []struct {
			ExecutionSuccessful bool `json:"executionSuccessful"`
			Notifications       []struct {
				Level     string     `json:"level"`
				Message   sarifMsg   `json:"message"`
				Locations []sarifLoc `json:"locations"`
			} `json:"toolExecutionNotifications"`
		} `json:"invocations"`
		Results []sarifResult `json:"results"`
	} `json:"runs"`
}

type sarifMsg struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             *sarifMsg         `json:"message"`
	Locations           []sarifLoc        `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties"`
}

type sarifLoc struct {
	PhysicalLocation *struct {
		ArtifactLocation *struct {
			URI *string `json:"uri"`
		} `json:"artifactLocation"`
		Region *struct {
			StartLine int `json:"startLine"`
		} `json:"region"`
	} `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// sarifSchema is the whole SARIF 2.1.0 schema (OASIS Standard, as the
// SARIF Multitool 5.7.0 ships it: testdata/sarif-2.1.0.schema.json).
func sarifSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "sarif-2.1.0.schema.json"))
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

// uriReference is RFC 3986's URI-reference, percent-encoded: what the
// schema's "format": "uri-reference" asks (a space or a non-ASCII
// character breaks it).
var uriReference = regexp.MustCompile(`^([A-Za-z0-9\-._~!$&'()*+,;=:@/?#]|%[0-9A-Fa-f]{2})*$`)

// ghasErrors are the errors the SARIF Multitool's rules for GitHub
// Advanced Security (rule kind "Ghas", 5.7.0) report, as its rule
// documentation states them, for the objects the log has.
func ghasErrors(doc sarifDoc) []string {
	var errs []string
	add := func(rule, format string, args ...any) { errs = append(errs, rule+": "+fmt.Sprintf(format, args...)) }
	switch doc.Schema {
	case "https://json.schemastore.org/sarif-2.1.0.json", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/schemas/sarif-schema-2.1.0.json",
		"https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json":
	default:
		add("GH1011", "$schema %q is not the final SARIF 2.1.0 schema", doc.Schema)
	}
	if len(doc.Runs) > 20 {
		add("GH1004", "%d runs, more than 20", len(doc.Runs))
	}
	for ri, run := range doc.Runs {
		d := run.Tool.Driver
		if d.Name == "" {
			add("GH1018", "run %d: the driver has no name", ri)
		}
		if d.Rules == nil {
			add("GH1018", "run %d: the driver has no rules array", ri)
		}
		if len(d.Rules) > 25000 || len(run.Results) > 25000 {
			add("GH1004", "run %d: %d rules and %d results, more than 25000", ri, len(d.Rules), len(run.Results))
		}
		if run.Results == nil {
			add("GH1014", "run %d: no results array", ri)
		}
		for _, rule := range d.Rules {
			switch {
			case rule.ShortDescription == nil || rule.ShortDescription.Text == "":
				add("GH2012", "rule %s: no shortDescription", rule.ID)
			case rule.FullDescription == nil || rule.FullDescription.Text == "":
				add("GH2012", "rule %s: no fullDescription", rule.ID)
			case rule.Help == nil || rule.Help.Text == "":
				add("GH2012", "rule %s: no help text", rule.ID)
			}
			if len(rule.Properties.Tags) > 20 {
				add("GH1004", "rule %s: %d tags, more than 20", rule.ID, len(rule.Properties.Tags))
			}
		}
		for i, res := range run.Results {
			if res.Message == nil || res.Message.Text == "" {
				add("GH1007", "result %d: no message text", i)
			}
			if len(res.Locations) == 0 {
				add("GH1001", "result %d: no locations", i)
			}
			if len(res.Locations) > 1000 {
				add("GH1004", "result %d: %d locations, more than 1000", i, len(res.Locations))
			}
			for _, loc := range res.Locations {
				p := loc.PhysicalLocation
				switch {
				case p == nil:
					add("GH1016", "result %d: a location without physicalLocation", i)
				case p.ArtifactLocation == nil || p.ArtifactLocation.URI == nil:
					add("GH1001", "result %d: no physicalLocation.artifactLocation.uri", i)
				case p.Region == nil || p.Region.StartLine < 1:
					add("GH1003", "result %d: no region.startLine", i)
				default:
					u, err := url.Parse(*p.ArtifactLocation.URI)
					switch {
					case err != nil:
						add("SARIF1002", "result %d: uri %q is not a URI: %v", i, *p.ArtifactLocation.URI, err)
					case u.Scheme != "" && u.Scheme != "file":
						add("GH1005", "result %d: uri %q is not a file path", i, *p.ArtifactLocation.URI)
					case u.Scheme == "file":
						add("GH1006", "result %d: uri %q is an absolute file URI", i, *p.ArtifactLocation.URI)
					}
					if !uriReference.MatchString(*p.ArtifactLocation.URI) {
						add("SARIF1002", "result %d: uri %q is not a percent-encoded uri-reference", i, *p.ArtifactLocation.URI)
					}
				}
			}
		}
	}
	return errs
}

// validateSARIF writes rep as SARIF with opts, validates it against the
// whole SARIF 2.1.0 schema and the GHAS rules (and with the SARIF
// Multitool, when there is one), and checks what a viewer shows: one
// result per finding at its element, each rule a requirement linked to its
// entry in docs/requirements.md, each location a path or a scheme-less
// host/path with the real URL in the result's properties.
func validateSARIF(t *testing.T, rep *check.Report, opts *check.SARIFOptions) (sarifDoc, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := rep.WriteSARIFWith(&buf, opts); err != nil {
		t.Fatal(err)
	}
	var raw any
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatalf("sarif is not JSON: %v", err)
	}
	if err := sarifSchema(t).Validate(raw); err != nil {
		t.Fatalf("sarif does not match SARIF 2.1.0: %v\n%s", err, buf.String())
	}
	var doc sarifDoc
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, e := range ghasErrors(doc) {
		t.Errorf("GitHub code scanning would refuse the log: %s", e)
	}
	multitool(t, buf.Bytes())
	if doc.Version != "2.1.0" || len(doc.Runs) != 1 {
		t.Fatalf("sarif version %q with %d runs, want 2.1.0 with one", doc.Version, len(doc.Runs))
	}
	run := doc.Runs[0]
	if d := run.Tool.Driver; d.Version == "" || d.SemanticVersion == "" {
		t.Errorf("the tool gives no version: %q %q", d.Version, d.SemanticVersion)
	}
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
	i := 0
	for _, p := range rep.Pages {
		for _, f := range p.Findings {
			if i >= len(run.Results) {
				t.Fatalf("%d results for more findings", len(run.Results))
			}
			r := run.Results[i]
			i++
			if r.RuleID != f.Requirement || r.RuleIndex < 0 || r.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
				t.Errorf("result %d: rule %s index %d, want %s", i, r.RuleID, r.RuleIndex, f.Requirement)
			}
			wantLevel := map[check.Severity]string{check.Error: "error", check.Warning: "warning", check.Info: "note"}[f.Severity]
			if r.Level != wantLevel || !strings.HasPrefix(r.Message.Text, strings.TrimSuffix(f.Message, ".")) {
				t.Errorf("result %d: level %s message %q, want %s %q", i, r.Level, r.Message.Text, wantLevel, f.Message)
			}
			if r.Properties["url"] != p.URL {
				t.Errorf("result %d: properties.url %v, want the page's URL %s", i, r.Properties["url"], p.URL)
			}
			var want []sarifLogical
			if f.Selector != "" {
				want = []sarifLogical{{f.Selector, f.Where(), "element"}}
			}
			if diff := cmp.Diff(want, r.Locations[0].LogicalLocations); diff != "" {
				t.Errorf("result %d: logical locations (-want +got):\n%s", i, diff)
			}
			if len(r.PartialFingerprints) == 0 {
				t.Errorf("result %d: no partialFingerprints", i)
			}
		}
	}
	if i != len(run.Results) {
		t.Errorf("%d results for %d findings", len(run.Results), i)
	}
	if run.Invocations[0].ExecutionSuccessful != (rep.Failed == 0) {
		t.Errorf("executionSuccessful %v with %d page(s) not checked", run.Invocations[0].ExecutionSuccessful, rep.Failed)
	}
	return doc, buf.Bytes()
}

// multitool validates the log with the SARIF Multitool (rule kinds Sarif
// and Ghas) when one is installed: POPPY_SARIF_MULTITOOL names it, or
// Sarif.Multitool or sarif-multitool on PATH (npm install
// @microsoft/sarif-multitool). Without it, ghasErrors and the schema
// stand for it.
func multitool(t *testing.T, log []byte) {
	t.Helper()
	bin := os.Getenv("POPPY_SARIF_MULTITOOL")
	for _, name := range []string{"Sarif.Multitool", "sarif-multitool"} {
		if bin != "" {
			break
		}
		bin, _ = exec.LookPath(name)
	}
	if bin == "" {
		t.Log("no SARIF Multitool (set POPPY_SARIF_MULTITOOL, or npm install @microsoft/sarif-multitool): validated against the schema and the GHAS rules only")
		return
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "check.sarif"), filepath.Join(dir, "validation.sarif")
	if err := os.WriteFile(in, log, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "validate", "--rule-kind", "Sarif;Ghas", "--output", out, in)
	cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1")
	msg, err := cmd.CombinedOutput()
	if err != nil && len(msg) == 0 {
		t.Logf("the SARIF Multitool does not run here (%v): validated against the schema and the GHAS rules only", err)
		return
	}
	var res struct {
		Runs []struct {
			Results []struct {
				RuleID  string `json:"ruleId"`
				Level   string `json:"level"`
				Message struct {
					ID        string   `json:"id"`
					Arguments []string `json:"arguments"`
				} `json:"message"`
			} `json:"results"`
		} `json:"runs"`
	}
	data, rerr := os.ReadFile(out)
	if rerr != nil || json.Unmarshal(data, &res) != nil {
		t.Fatalf("the SARIF Multitool wrote no result (%v): %s", rerr, msg)
	}
	for _, run := range res.Runs {
		for _, r := range run.Results {
			if r.Level == "error" {
				t.Errorf("SARIF Multitool: %s: %s %q", r.RuleID, r.Message.ID, r.Message.Arguments)
			} else {
				t.Logf("SARIF Multitool %s: %s: %s %q", r.Level, r.RuleID, r.Message.ID, r.Message.Arguments)
			}
		}
	}
}

// sarifReport is a report with what the SARIF log must carry well: an
// element in a frame's shadow tree, a URL with a space and non-ASCII
// characters, a host with a port, a query, a page not checked.
func sarifReport() *check.Report {
	return &check.Report{Pages: []check.PageReport{
		{URL: "https://shop.test/checkout", Status: check.StatusChecked, Checked: []string{"BC-4-attribute", "BC-4-mark-all"}, Findings: []check.Finding{
			{ID: "submit-route", Severity: check.Error, Check: check.CheckSubmitPaths, Requirement: "BC-4-mark-all", Section: "4", Route: "click",
				Message: "Clicking button \"Apply\", which no mark covers, submits the form.", Element: `button "Apply"`, Frame: "https://shop.test/checkout",
				Selector: "#apply", FrameSelectors: []string{"iframe#pay"}, ShadowHosts: []string{"pay-box"}, HTML: `<button id="apply">`, Line: 12},
			{ID: "mark-unknown-value", Severity: check.Warning, Check: check.CheckMarks, Requirement: "BC-4-values", Section: "4", Message: "unknown value", Selector: "div.x", HTML: "<div class=\"x\">"},
			{ID: "controller-read", Severity: check.Info, Check: check.CheckController, Requirement: "BC-6-not-relied-on", Section: "6", Message: "the page reads the controller"},
		}},
		{URL: "https://shop.test:8443/r\u00e9servation/pay%20now?session=abc#top", Status: check.StatusChecked, Checked: []string{"BC-4-mark-all"}, Findings: []check.Finding{
			{ID: "fill-submits", Severity: check.Error, Check: check.CheckFill, Requirement: "BC-4-fill-not-perform", Section: "4", Message: "Filling in the amount submits the form.", Selector: "#amount", HTML: `<input id="amount">`},
		}},
		{URL: "https://shop.test/down", Status: check.StatusFailed, Error: "net::ERR_CONNECTION_REFUSED"},
	}, Failed: 1}
}

// TestSARIF: the SARIF log passes the schema and the GHAS rules; results
// are at scheme-less, percent-encoded host/paths with the real URL in
// their properties, each with a region; the element's line in the served
// HTML is the region; the tool gives its version; a page that could not be
// checked is a notification; the fingerprints are the same on a second
// run and differ between findings.
func TestSARIF(t *testing.T) {
	rep := sarifReport()
	doc, first := validateSARIF(t, rep, &check.SARIFOptions{Version: "v1.4.2"})
	run := doc.Runs[0]
	var ids []string
	for _, r := range run.Tool.Driver.Rules {
		ids = append(ids, r.ID)
	}
	if diff := cmp.Diff([]string{"BC-4-attribute", "BC-4-values", "BC-4-mark-all", "BC-4-fill-not-perform", "BC-6-not-relied-on"}, ids); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	if d := run.Tool.Driver; d.Version != "1.4.2" || d.SemanticVersion != "1.4.2" {
		t.Errorf("tool version %q semanticVersion %q, want 1.4.2 for both", d.Version, d.SemanticVersion)
	}
	var uris []string
	var lines []int
	for _, r := range run.Results {
		uris = append(uris, *r.Locations[0].PhysicalLocation.ArtifactLocation.URI)
		lines = append(lines, r.Locations[0].PhysicalLocation.Region.StartLine)
	}
	wantURIs := []string{"shop.test/checkout", "shop.test/checkout", "shop.test/checkout", "shop.test%3A8443/r%C3%A9servation/pay%20now"}
	if diff := cmp.Diff(wantURIs, uris); diff != "" {
		t.Errorf("artifact URIs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{12, 1, 1, 1}, lines); diff != "" {
		t.Errorf("regions' start lines (-want +got):\n%s", diff)
	}
	if got := run.Results[0].Locations[0].LogicalLocations[0].FullyQualifiedName; got != "iframe#pay >>> pay-box >>> #apply" {
		t.Errorf("the element in a frame's shadow tree is at %q", got)
	}
	if n := run.Invocations[0].Notifications; len(n) != 1 || n[0].Level != "error" || !strings.Contains(n[0].Message.Text, "ERR_CONNECTION_REFUSED") ||
		*n[0].Locations[0].PhysicalLocation.ArtifactLocation.URI != "shop.test/down" {
		t.Errorf("the page not checked: notifications %+v", n)
	}
	// Stable across runs: the same report, messages changed by what a
	// probe saw this time, gives the same fingerprints.
	again := sarifReport()
	again.Pages[0].Findings[0].Message += " The checker confirmed it."
	doc2, _ := validateSARIF(t, again, &check.SARIFOptions{Version: "v1.4.2"})
	seen := map[string]bool{}
	for i, r := range run.Results {
		fp := r.PartialFingerprints["primaryLocationLineHash"]
		if fp == "" || seen[fp] {
			t.Errorf("result %d: fingerprint %q missing or shared", i, fp)
		}
		seen[fp] = true
		if got := doc2.Runs[0].Results[i].PartialFingerprints; !cmp.Equal(got, r.PartialFingerprints) {
			t.Errorf("result %d: fingerprints %v on the second run, %v on the first", i, got, r.PartialFingerprints)
		}
	}
	if bytes.Contains(first, []byte("session=abc")) && !bytes.Contains(first, []byte(`"url": "https://shop.test:8443/r`)) {
		t.Errorf("the query is in a location, not only in the page's url")
	}
}

// TestSARIFSourceRoot: with --source-root, a finding on a page that maps
// to a file of the repository lands on that file (as it is, with .html,
// or its index.html), its region the served HTML's line; a page it does
// not map stays a scheme-less host/path.
func TestSARIFSourceRoot(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"templates/checkout.html", "templates/index.html", "templates/help/index.html", "templates/robots.txt"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(root, f), "<!doctype html>")
	}
	sr, err := check.ParseSourceRoot("https://staging.example/=templates")
	if err != nil {
		t.Fatal(err)
	}
	page := func(u string, line int) check.PageReport {
		return check.PageReport{URL: u, Status: check.StatusChecked, Findings: []check.Finding{{ID: "submit-route", Severity: check.Error, Check: check.CheckSubmitPaths,
			Requirement: "BC-4-mark-all", Section: "4", Message: "A way out.", Frame: u, Selector: "#pay", HTML: `<button id="pay">`, Line: line}}}
	}
	rep := &check.Report{Pages: []check.PageReport{
		page("https://staging.example/checkout", 7),
		page("https://staging.example/?from=mail", 3),
		page("https://staging.example/help/", 0),
		page("https://staging.example/robots.txt", 0),
		page("https://staging.example/gone", 0),
		page("https://staging.example.evil/checkout", 0),
		page("https://other.example/checkout", 0),
	}}
	doc, _ := validateSARIF(t, rep, &check.SARIFOptions{SourceRoots: []check.SourceRoot{sr}, Root: root})
	var got []string
	for _, r := range doc.Runs[0].Results {
		p := r.Locations[0].PhysicalLocation
		got = append(got, fmt.Sprintf("%s:%d", *p.ArtifactLocation.URI, p.Region.StartLine))
	}
	want := []string{"templates/checkout.html:7", "templates/index.html:3", "templates/help/index.html:1", "templates/robots.txt:1",
		"staging.example/gone:1", "staging.example.evil/checkout:1", "other.example/checkout:1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("locations (-want +got):\n%s", diff)
	}
}

// TestParseSourceRoot: URLPREFIX=DIR, with DIR inside the repository.
func TestParseSourceRoot(t *testing.T) {
	for _, tc := range []struct {
		in, wantDir, wantErr string
	}{
		{"https://staging.example/=templates", "templates", ""},
		{"https://staging.example/shop=web/./shop/", "web/shop", ""},
		{"http://localhost:8080/=.", ".", ""},
		{"https://staging.example/", "", "want URLPREFIX=DIR"},
		{"=templates", "", "want URLPREFIX=DIR"},
		{"staging.example=templates", "", "not an http or https URL"},
		{"https://staging.example/=/srv/www", "", "inside the repository"},
		{"https://staging.example/=../other", "", "inside the repository"},
	} {
		sr, err := check.ParseSourceRoot(tc.in)
		switch {
		case tc.wantErr == "" && (err != nil || sr.Dir != tc.wantDir):
			t.Errorf("%q: %+v %v, want dir %q", tc.in, sr, err, tc.wantDir)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%q: %v, want an error saying %q", tc.in, err, tc.wantErr)
		}
	}
}

// TestSARIFSchemaRejects: the schema and the GHAS rules the test holds
// the log to refuse what code scanning refuses.
func TestSARIFSchemaRejects(t *testing.T) {
	schema := sarifSchema(t)
	for name, bad := range map[string]string{
		"no version":     `{"runs": []}`,
		"version 2.0.0":  `{"version": "2.0.0", "runs": []}`,
		"no driver name": `{"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]}`,
		"level info":     `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"}, "level": "info"}]}]}`,
		"no message":     `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"ruleId": "r"}]}]}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(bad), &v); err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(v); err == nil {
			t.Errorf("the SARIF schema accepted a log with %s", name)
		}
	}
	for name, bad := range map[string]string{
		"https uri":          `{"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "runs": [{"tool": {"driver": {"name": "x", "rules": []}}, "results": [{"message": {"text": "m"}, "locations": [{"physicalLocation": {"artifactLocation": {"uri": "https://shop.test/"}, "region": {"startLine": 1}}}]}]}]}`,
		"no region":          `{"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "runs": [{"tool": {"driver": {"name": "x", "rules": []}}, "results": [{"message": {"text": "m"}, "locations": [{"physicalLocation": {"artifactLocation": {"uri": "shop.test/"}}}]}]}]}`,
		"space in uri":       `{"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "runs": [{"tool": {"driver": {"name": "x", "rules": []}}, "results": [{"message": {"text": "m"}, "locations": [{"physicalLocation": {"artifactLocation": {"uri": "shop.test/pay now"}, "region": {"startLine": 1}}}]}]}]}`,
		"no fullDescription": `{"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "runs": [{"tool": {"driver": {"name": "x", "rules": [{"id": "r", "shortDescription": {"text": "s"}, "help": {"text": "h"}}]}}, "results": []}]}`,
		"no locations":       `{"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "runs": [{"tool": {"driver": {"name": "x", "rules": []}}, "results": [{"message": {"text": "m"}}]}]}`,
	} {
		var doc sarifDoc
		if err := json.Unmarshal([]byte(bad), &doc); err != nil {
			t.Fatal(err)
		}
		if errs := ghasErrors(doc); len(errs) == 0 {
			t.Errorf("the GHAS rules accepted a log with %s", name)
		}
	}
}
