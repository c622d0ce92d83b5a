package check_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image/png"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/poppy-browser/poppy-browser/check"
	"github.com/poppy-browser/poppy-browser/internal/golden"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// cleanPages are demo airline pages with nothing wrong.
func cleanPages() []string {
	return []string{"https://" + testsite.CompanyDomain + "/", testsite.BookingURL(), testsite.CheckInURL()}
}

// TestFixtures checks every problem page and the clean demo pages in one
// run (with --fill), compares each problem page's marks and findings with
// its golden file, and validates the JSON, JUnit and HTML outputs.
func TestFixtures(t *testing.T) {
	c := newChecker(t, check.Options{Fill: true})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	fixtures := testsite.CheckFixtureURLs()
	names := make([]string, 0, len(fixtures))
	for n := range fixtures {
		names = append(names, n)
	}
	sort.Strings(names)
	urls := cleanPages()
	for _, n := range names {
		urls = append(urls, fixtures[n])
	}
	rep, err := c.Run(ctx, urls)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Pages) != len(urls) {
		t.Fatalf("got %d pages, want %d", len(rep.Pages), len(urls))
	}
	byURL := map[string]check.PageReport{}
	for _, p := range rep.Pages {
		byURL[p.URL] = p
		if p.Status != check.StatusChecked {
			t.Errorf("%s: status %s: %s", p.URL, p.Status, p.Error)
		}
	}
	t.Run("clean", func(t *testing.T) {
		for _, u := range cleanPages() {
			for _, f := range byURL[u].Findings {
				if f.Severity.AtLeast(check.Warning) {
					t.Errorf("%s: unexpected %s: %s", u, f.Severity, f.Message)
				}
			}
			if d := byURL[u].Discovery; d == nil || !d.OK {
				t.Errorf("%s: discovery %+v, want ok", u, d)
			}
		}
		// The check-in page reads the controller, changes what it shows, and
		// sends "user" with the User's submission.
		ci := byURL[testsite.CheckInURL()]
		want := &check.ControllerUse{Reads: true, ReadFrames: []string{testsite.CheckInURL(), "https://" + testsite.PayHost + "/frame"}, ChangesView: true, Sent: ptr(true), SentField: "controller",
			Submissions: []check.Submission{{Frame: testsite.CheckInURL(), Form: `form "check-in"`, Request: "POST /bookings/" + testsite.BookingID + "/check-in",
				Field: "controller", AsUser: ptr("user"), AsAgent: ptr("agent")}}}
		if diff := cmp.Diff(want, ci.Controller); diff != "" {
			t.Errorf("check-in controller use (-want +got):\n%s", diff)
		}
		if len(ci.Views) != 2 || ci.Views[0].Controller != "agent" || ci.Views[1].Controller != "user" {
			t.Errorf("check-in views: want agent and user, got %d", len(ci.Views))
		}
		var text bytes.Buffer
		if err := (&check.Report{Pages: []check.PageReport{ci}}).WriteText(&text, check.Error); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), `button "Upgrade seat" (outside, form="check-in")`) {
			t.Errorf("terminal output does not name the form of a form= control:\n%s", text.String())
		}
		// The runtime's one snapshot gate numbers refs across the Company's
		// pages, as one agent visiting them in turn would see them.
		if !regexp.MustCompile(`button "Check in" \[e\d+\] \(user step: submission form e\d+`).MatchString(ci.Snapshot) {
			t.Errorf("check-in snapshot lacks the marked Check in button:\n%s", ci.Snapshot)
		}
	})
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			golden.Check(t, filepath.Join("testdata", n+".golden"), []byte(render(byURL[fixtures[n]])))
		})
	}
	t.Run("late mark delay", func(t *testing.T) {
		// The form marked two seconds after load is in the table with its delay.
		for _, m := range byURL[fixtures["late-2s"]].Marks {
			if m.MarkedAtMS == nil || *m.MarkedAtMS < 2000 {
				t.Errorf("late-2s: %s marked at %v, want at least 2000 ms", m.Element, m.MarkedAtMS)
			}
		}
		for _, u := range cleanPages() {
			for _, m := range byURL[u].Marks {
				if m.MarkedAtMS != nil {
					t.Errorf("%s: %s is in the HTML but reported late (%v ms)", u, m.Element, *m.MarkedAtMS)
				}
			}
		}
	})
	t.Run("routes", func(t *testing.T) {
		for name, want := range map[string]string{"enter-escape": "Enter", "escape-submit": "click", "shadow-marks": "click", "closed-shadow": "click", "frame-marks": "click",
			"slow-escape": "click", "script-pay": "click"} {
			var got []string
			for _, f := range byURL[fixtures[name]].Findings {
				if f.Check == check.CheckSubmitPaths {
					got = append(got, f.Route)
				}
			}
			if len(got) != 1 || got[0] != want {
				t.Errorf("%s: escape routes %q, want one %q", name, got, want)
			}
		}
	})
	t.Run("located", func(t *testing.T) {
		// Every element-level finding points at its element (TestLocate
		// checks that the selectors match it).
		for _, p := range rep.Pages {
			for _, f := range p.Findings {
				if f.Element != "" && (f.Selector == "" || f.HTML == "") {
					t.Errorf("%s: %s finding on %s has selector %q html %q", p.URL, f.Check, f.Element, f.Selector, f.HTML)
				}
				if f.Element != "" && f.Frame != p.FinalURL && len(f.FrameSelectors) == 0 {
					t.Errorf("%s: %s finding on %s in frame %s has no frame selectors", p.URL, f.Check, f.Element, f.Frame)
				}
			}
		}
	})
	t.Run("json", func(t *testing.T) { validateJSON(t, rep) })
	t.Run("junit", func(t *testing.T) { validateJUnit(t, rep) })
	t.Run("html", func(t *testing.T) { validateHTML(t, rep) })
	t.Run("sarif", func(t *testing.T) { validateSARIF(t, rep, nil) })
	t.Run("exit codes", func(t *testing.T) {
		// A page whose marked submitter's form can be submitted another way
		// fails the default --fail-on; the page with every way out marked
		// passes it.
		for name, want := range map[string]int{"apply-before-pay": check.ExitFindings, "marked-not-default": check.ExitFindings,
			"two-marked": check.ExitFindings, "form-attr": check.ExitFindings, "all-marked": 0,
			"slow-escape": check.ExitFindings, "script-pay": check.ExitFindings, "same-name": 0, "restless": 0} {
			one := &check.Report{Pages: []check.PageReport{byURL[fixtures[name]]}}
			if got := one.ExitCode(check.Error); got != want {
				t.Errorf("%s: exit code %d under --fail-on error, want %d", name, got, want)
			}
		}
	})
	if got := rep.ExitCode(check.Error); got != check.ExitFindings {
		t.Errorf("exit code with --fail-on error: %d, want 1", got)
	}
}

func ptr[T any](v T) *T { return &v }

// render is a page's marks and findings as the golden files hold them:
// everything but timings.
func render(p check.PageReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "status %s\n", p.Status)
	for _, m := range p.Marks {
		fmt.Fprintf(&b, "mark %s value=%q kind=%s", m.Element, m.Value, m.Kind)
		if m.MarkedAtMS != nil {
			b.WriteString(" late")
		}
		b.WriteString(" covers:")
		for _, c := range m.Covers {
			fmt.Fprintf(&b, " [%s", c.Element)
			if c.Outside {
				fmt.Fprintf(&b, " outside form=%q", c.Form)
			}
			b.WriteString("]")
		}
		b.WriteByte('\n')
	}
	for _, f := range p.Findings {
		fmt.Fprintf(&b, "%s %s %s (section %s)", f.Severity, f.Check, f.Requirement, f.Section)
		if f.Element != "" {
			fmt.Fprintf(&b, " on %s", f.Element)
		}
		fmt.Fprintf(&b, ": %s\n", f.Message)
		if (f.UsableAtMS == nil) != (f.MarkedAtMS == nil) || (f.UsableAtMS != nil && *f.UsableAtMS >= *f.MarkedAtMS) {
			fmt.Fprintf(&b, "  bad timing: usable %v marked %v\n", f.UsableAtMS, f.MarkedAtMS)
		}
	}
	fmt.Fprintf(&b, "checked %s\nskipped %s\n", strings.Join(p.Checked, " "), strings.Join(p.Skipped, " "))
	return b.String()
}

func validateJSON(t *testing.T, rep *check.Report) {
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(check.SchemaJSON(), &schema); err != nil {
		t.Fatalf("schema: %v", err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatalf("resolving the schema: %v", err)
	}
	var doc any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("report is not JSON: %v", err)
	}
	if err := resolved.Validate(doc); err != nil {
		t.Errorf("report does not match its schema: %v", err)
	}
	// The schema must reject what is wrong, too.
	bad := map[string]any{}
	json.Unmarshal(buf.Bytes(), &bad)
	bad["pages"].([]any)[0].(map[string]any)["status"] = "fine"
	if err := resolved.Validate(bad); err == nil {
		t.Error("schema accepted a page status of \"fine\"")
	}
	var back check.Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Counts != rep.Counts || len(back.Pages) != len(rep.Pages) || back.Schema != check.SchemaID {
		t.Errorf("round trip: counts %+v pages %d schema %q", back.Counts, len(back.Pages), back.Schema)
	}
}

func validateJUnit(t *testing.T, rep *check.Report) {
	var buf bytes.Buffer
	if err := rep.WriteJUnit(&buf, check.Warning); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Failure   *struct {
					Text string `xml:",chardata"`
				} `xml:"failure"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("junit is not XML: %v", err)
	}

	if len(doc.Suites) != len(rep.Pages) {
		t.Fatalf("%d suites for %d pages", len(doc.Suites), len(rep.Pages))
	}
	// One failed case per finding at least --fail-on (warning here).
	wantFails := 0
	for _, p := range rep.Pages {
		for _, f := range p.Findings {
			if f.Severity.AtLeast(check.Warning) {
				wantFails++
			}
		}
	}
	failed := map[string]string{} // "page requirement" of each failed case, to its text
	cases, fails := 0, 0
	for _, s := range doc.Suites {
		names := map[string]bool{}
		for _, c := range s.Cases {
			cases++
			if names[c.Name] {
				t.Errorf("junit: %s: case %q twice", s.Name, c.Name)
			}
			names[c.Name] = true
			if c.Failure != nil {
				fails++
				req, _, _ := strings.Cut(c.Name, " ")
				failed[s.Name+" "+req] += c.Failure.Text + "\n"
			}
		}
	}
	if cases != doc.Tests {
		t.Errorf("tests=%d but %d test cases", doc.Tests, cases)
	}
	if fails != doc.Failures || fails != wantFails {
		t.Errorf("failures=%d, %d failed cases, want one per finding at least warning: %d", doc.Failures, fails, wantFails)
	}
	fx := testsite.CheckFixtureURLs()
	// A failure says where its element is.
	if got, want := failed[fx["escape-submit"]+" BC-4-mark-all"], "\n  at #quick\n  <button type=\"button\" id=\"quick\">"; !strings.Contains(got, want) {
		t.Errorf("junit: the escape route's failure %q lacks its place %q", got, want)
	}
	for _, want := range []string{
		fx["late-marks"] + " BC-4-mark-all",
		fx["fill-submits"] + " BC-4-fill-not-perform",
		fx["escape-submit"] + " BC-4-mark-all",
		fx["unknown-value"] + " BC-4-values",
		fx["submission-div"] + " BC-4-values",
		fx["shadow-marks"] + " BC-4-mark-all",
		fx["closed-shadow"] + " BC-4-mark-all",
		fx["frame-marks"] + " BC-4-mark-all",
		fx["late-2s"] + " BC-4-mark-all",
		fx["enter-escape"] + " BC-4-mark-all",
	} {
		if _, ok := failed[want]; !ok {
			t.Errorf("junit: %s did not fail", want)
		}
	}
	for k := range failed {
		if strings.HasPrefix(k, testsite.CheckInURL()+" ") {
			t.Errorf("junit: clean page case %s failed", k)
		}
	}
}

var imgRE = regexp.MustCompile(`src="data:image/png;base64,([^"]+)"`)

func validateHTML(t *testing.T, rep *check.Report) {
	var buf bytes.Buffer
	if err := rep.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	views, boxes := 0, 0
	for _, p := range rep.Pages {
		views += len(p.Views)
		for _, v := range p.Views {
			boxes += len(v.Boxes)
		}
	}
	imgs := imgRE.FindAllStringSubmatch(html, -1)
	if len(imgs) != views || views == 0 {
		t.Fatalf("%d screenshots in the HTML for %d views", len(imgs), views)
	}
	for _, m := range imgs {
		data, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(m[1], "&#43;", "+"))
		if err != nil {
			t.Fatalf("screenshot is not base64: %v", err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil || cfg.Width < 100 || cfg.Height < 100 {
			t.Fatalf("screenshot is not a page-sized PNG: %v %+v", err, cfg)
		}
	}
	if got := strings.Count(html, `<div class="box k-interaction"`) + strings.Count(html, `<div class="box k-submission"`); got != boxes || boxes == 0 {
		t.Errorf("%d outlined marks in the HTML, want %d", got, boxes)
	}
	outlines := 0
	for _, p := range rep.Pages {
		for _, f := range p.Findings {
			if f.Box != nil && len(p.Views) > 0 {
				outlines++
			}
		}
	}
	if got := strings.Count(html, `<div class="box k-finding"`); got != outlines || outlines == 0 {
		t.Errorf("%d outlined findings in the HTML, want %d", got, outlines)
	}
	for _, want := range []string{`submission: form &#34;check-in&#34;`, `interaction: textbox &#34;Passport number&#34;`, `class="step"`} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %s", want)
		}
	}
	for _, bad := range []string{"<script", "http://", `src="https:`} {
		if strings.Contains(html, bad) {
			t.Errorf("HTML is not self-contained: it holds %s", bad)
		}
	}
}
