package check_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/check"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestDiscovery checks the findings of discovery: the draft 0.1 object shape
// is a warning, a document without browser-control an error, and
// NoDiscovery skips it. The marks are checked either way.
func TestDiscovery(t *testing.T) {
	url := testsite.CheckFixtureURLs()["unknown-value"]
	const old = `{"protocol_version":"0.4","organization":{"name":"Demo Airline","domain":"airline.test"},
		"web":{"browser_session_endpoint":"https://airline.test/poppy/browser-session"},
		"extensions":{"browser-control":{"version":"1"}}}`
	const none = `{"protocol_version":"0.4","organization":{"name":"Demo Airline","domain":"airline.test"},
		"web":{"browser_session_endpoint":"https://airline.test/poppy/browser-session"},"extensions":{}}`
	tests := []struct {
		name    string
		doc     string
		opts    check.Options
		want    check.Severity // the discovery finding's severity; "" for none
		skipped bool
	}{
		{"old shape", old, check.Options{NoProbe: true}, check.Warning, false},
		{"no browser-control", none, check.Options{NoProbe: true}, check.Error, false},
		{"no discovery", none, check.Options{NoProbe: true, NoDiscovery: true}, "", true},
	}
	t.Cleanup(func() { env.site.SetPoppyJSON(nil) })
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newChecker(t, tc.opts)
			env.site.SetPoppyJSON([]byte(tc.doc))
			ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
			defer cancel()
			p := c.CheckPage(ctx, url)
			var got []check.Finding
			for _, f := range p.Findings {
				if f.Check == check.CheckDiscovery {
					got = append(got, f)
				}
			}
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("got discovery findings %+v, want none", got)
			case tc.want != "" && (len(got) != 1 || got[0].Severity != tc.want || got[0].Requirement != "BC-3-poppy-json"):
				t.Errorf("got discovery findings %+v, want one %s citing BC-3-poppy-json", got, tc.want)
			}
			if tc.want == check.Error && !strings.Contains(got[0].Message, "does not list browser-control") {
				t.Errorf("message %q does not say what is missing", got[0].Message)
			}
			skipped := strings.Contains(strings.Join(p.Skipped, " "), "BC-3-poppy-json")
			if skipped != tc.skipped {
				t.Errorf("BC-3-poppy-json skipped=%v, want %v", skipped, tc.skipped)
			}
			if len(p.Marks) != 1 || p.Marks[0].Value != "confirm" {
				t.Errorf("marks not checked: %+v", p.Marks)
			}
		})
	}
}

// TestExitCode covers the exit codes of a report.
func TestExitCode(t *testing.T) {
	page := func(status string, sevs ...check.Severity) check.PageReport {
		p := check.PageReport{Status: status}
		for _, s := range sevs {
			p.Findings = append(p.Findings, check.Finding{Severity: s})
		}
		return p
	}
	tests := []struct {
		name   string
		pages  []check.PageReport
		failOn check.Severity
		want   int
	}{
		{"clean", []check.PageReport{page(check.StatusChecked)}, check.Error, 0},
		{"info only", []check.PageReport{page(check.StatusChecked, check.Info)}, check.Warning, 0},
		{"warning under error", []check.PageReport{page(check.StatusChecked, check.Warning)}, check.Error, 0},
		{"warning at warning", []check.PageReport{page(check.StatusChecked, check.Warning)}, check.Warning, 1},
		{"error", []check.PageReport{page(check.StatusChecked, check.Info, check.Error)}, check.Error, 1},
		{"could not check wins", []check.PageReport{page(check.StatusChecked, check.Error), page(check.StatusFailed)}, check.Error, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &check.Report{Pages: tc.pages}
			for _, p := range tc.pages {
				if p.Status == check.StatusFailed {
					r.Failed++
				}
			}
			if got := r.ExitCode(tc.failOn); got != tc.want {
				t.Errorf("ExitCode(%s) = %d, want %d", tc.failOn, got, tc.want)
			}
		})
	}
}
