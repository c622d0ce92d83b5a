package check_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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

// TestIPPageSkipsDiscovery checks the page of issue 33 served at an IP
// address, as a developer runs it: discovery is skipped by itself with one
// info saying so (no --no-discovery), and the unmarked Apply, the form's
// default button, is reported with Enter in each field, so the page fails
// the default --fail-on.
func TestIPPageSkipsDiscovery(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.Method == http.MethodPost {
			t.Errorf("the checker submitted the form: %s %s", r.Method, r.URL)
		}
		w.Write([]byte(`<!doctype html><title>Checkout</title>
<form action="/pay" method="post">
  <label>Email <input type="email" name="email"></label>
  <label>Discount code <input name="code"></label> <button>Apply</button>
  <button type="submit" data-poppy-user-step="interaction">Pay</button>
</form>`))
	}))
	defer srv.Close()
	c := newChecker(t, check.Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	p := c.CheckPage(ctx, srv.URL+"/")
	if p.Status != check.StatusChecked {
		t.Fatalf("status %s: %s", p.Status, p.Error)
	}
	var disc, routes []string
	for _, f := range p.Findings {
		switch f.Check {
		case check.CheckDiscovery:
			disc = append(disc, string(f.Severity)+" "+f.Message)
		case check.CheckSubmitPaths:
			routes = append(routes, string(f.Severity)+" "+f.Route+" "+f.Element+" at "+f.Selector)
		}
	}
	if len(disc) != 1 || !strings.HasPrefix(disc[0], "info 127.0.0.1 is an IP address") || !strings.Contains(disc[0], "not a warning") {
		t.Errorf("discovery findings %q, want one info saying 127.0.0.1 skips discovery and why it is no warning", disc)
	}
	if p.Discovery != nil || !strings.Contains(strings.Join(p.Skipped, " "), "BC-3-poppy-json") {
		t.Errorf("discovery %+v, skipped %q: want none, BC-3-poppy-json skipped", p.Discovery, p.Skipped)
	}
	want := []string{
		`error click button "Apply" at html > body > form > button:nth-of-type(1)`,
		`error Enter textbox "Email" at html > body > form > label:nth-of-type(1) > input`,
		`error Enter textbox "Discount code" at html > body > form > label:nth-of-type(2) > input`,
	}
	if diff := cmp.Diff(want, routes); diff != "" {
		t.Errorf("escape routes (-want +got):\n%s", diff)
	}
	if got := (&check.Report{Pages: []check.PageReport{p}}).ExitCode(check.Error); got != check.ExitFindings {
		t.Errorf("exit code %d under --fail-on error, want %d", got, check.ExitFindings)
	}
}
