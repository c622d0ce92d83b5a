package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/check"
	"github.com/poppy-browser/poppy-browser/internal/cli"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestCheckCommand runs `poppy-browser check` against the demo airline and
// asserts its exit codes, summary and report files.
func TestCheckCommand(t *testing.T) {
	site, _, err := startDemoSite()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	fx := testsite.CheckFixtureURLs()
	dir := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
	}{
		{"clean", []string{testsite.CheckInURL()}, 0, []string{"0 error(s), 0 warning(s)"}},
		{"warning under --fail-on error", []string{fx["unknown-value"]}, 0, []string{"1 warning(s)"}},
		{"warning at --fail-on warning", []string{"--fail-on", "warning", fx["unknown-value"]}, 1, []string{`has the unknown value "confirm"`}},
		{"error", []string{"--json", filepath.Join(dir, "r.json"), "--junit", filepath.Join(dir, "r.xml"), "--html", filepath.Join(dir, "r.html"), "--sarif", filepath.Join(dir, "r.sarif"), fx["escape-submit"]}, 1,
			[]string{`Clicking button "Quick check-in"`, "at #quick\n", `<button type="button" id="quick">`, "1 error(s)"}},
		{"could not check", []string{"--no-discovery", "https://" + testsite.CompanyDomain + "/no-such-page"}, 2,
			[]string{"could not check: loading the page: HTTP 404", "1 page(s), 1 could not be checked: 1 error(s)"}},
	}
	// Each command starts a Chromium of its own and writes files of its own:
	// they run in parallel, and "report files" reads what "error" wrote once
	// the group is done.
	t.Run("commands", func(t *testing.T) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
				defer cancel()
				var stdout, stderr bytes.Buffer
				args := append([]string{"check"}, tc.args...)
				for _, a := range site.BrowserArgs() {
					args = append(args[:1], append([]string{"--browser-arg", a}, args[1:]...)...)
				}
				err := check.RunCommand(ctx, args[1:], &stdout, &stderr, site.Client())
				code := 0
				var ee *cli.ExitError
				switch {
				case errors.As(err, &ee):
					code = ee.ExitCode()
				case err != nil:
					t.Fatalf("check: %v\n%s", err, stderr.String())
				}
				if code != tc.wantCode {
					t.Errorf("exit code %d, want %d (err %v)\n%s", code, tc.wantCode, err, stdout.String())
				}
				for _, w := range tc.wantOut {
					if !strings.Contains(stdout.String(), w) {
						t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
					}
				}
			})
		}
	})
	t.Run("report files", func(t *testing.T) {
		raw, err := os.ReadFile(filepath.Join(dir, "r.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Schema string              `json:"schema"`
			Counts struct{ Error int } `json:"counts"`
		}
		if err := json.Unmarshal(raw, &rep); err != nil || rep.Schema != "poppy-browser/check-report/v1" || rep.Counts.Error != 1 {
			t.Errorf("json report: %v %+v", err, rep)
		}
		for _, f := range []string{"r.xml", "r.html"} {
			if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
				t.Errorf("%s not written: %v", f, err)
			}
		}
		// The SARIF log has the escape route as an error at its page (as a
		// scheme-less host/path, which code scanning takes, the real URL in
		// its properties) and selector, under the rule of its requirement.
		raw, err = os.ReadFile(filepath.Join(dir, "r.sarif"))
		if err != nil {
			t.Fatal(err)
		}
		var sarif struct {
			Version string `json:"version"`
			Runs    []struct {
				Results []struct {
					RuleID    string `json:"ruleId"`
					Level     string `json:"level"`
					Locations []struct {
						Physical struct {
							Artifact struct {
								URI string `json:"uri"`
							} `json:"artifactLocation"`
						} `json:"physicalLocation"`
						Logical []struct {
							Name string `json:"name"`
						} `json:"logicalLocations"`
					} `json:"locations"`
					Properties struct {
						URL string `json:"url"`
					} `json:"properties"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(raw, &sarif); err != nil || sarif.Version != "2.1.0" || len(sarif.Runs) != 1 {
			t.Fatalf("sarif log: %v, version %q", err, sarif.Version)
		}
		found := false
		for _, r := range sarif.Runs[0].Results {
			if r.RuleID == "BC-4-mark-all" && r.Level == "error" && len(r.Locations) == 1 &&
				r.Locations[0].Physical.Artifact.URI == strings.TrimPrefix(fx["escape-submit"], "https://") && r.Properties.URL == fx["escape-submit"] &&
				len(r.Locations[0].Logical) == 1 && r.Locations[0].Logical[0].Name == "#quick" {
				found = true
			}
		}
		if !found {
			t.Errorf("sarif log lacks the escape route at %s #quick:\n%s", fx["escape-submit"], raw)
		}
	})
	t.Run("usage", func(t *testing.T) {
		// Misuse is "could not check" (2), never "findings" (1).
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"check"}, "give at least one URL"},
			{[]string{"check", "--fail-on", "fatal", "https://x.test/"}, "--fail-on"},
			{[]string{"check", "--no-such-flag", "https://x.test/"}, "no-such-flag"},
			{[]string{"check", "--resolve", "airline.test", "https://airline.test/"}, "--resolve"},
			{[]string{"check", "--watch", "2m", "https://airline.test/"}, "watch"},
		} {
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), c.args, nil, &stdout, &stderr)
			var ee *cli.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v: %v, want exit 2 mentioning %q", c.args, err, c.want)
			}
		}
	})
}
