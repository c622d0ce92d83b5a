package check_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/check"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestRoutesWithoutProbes: under --no-probe the routes the HTML form
// model finds are still errors at each way out, and a plain button of a
// form whose submitter is marked, which only a script could submit from,
// is a warning saying the checker did not try it: never an all-clear.
func TestRoutesWithoutProbes(t *testing.T) {
	c := newChecker(t, check.Options{NoProbe: true, Watch: time.Second})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	fx := testsite.CheckFixtureURLs()
	rep, err := c.Run(ctx, []string{fx["apply-before-pay"], fx["script-pay"]})
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ sev, el string }
	got := map[string][]row{}
	for _, p := range rep.Pages {
		if p.Status != check.StatusChecked {
			t.Fatalf("%s: %s: %s", p.URL, p.Status, p.Error)
		}
		for _, f := range p.Findings {
			if f.Check != check.CheckSubmitPaths {
				continue
			}
			got[p.URL] = append(got[p.URL], row{string(f.Severity), f.Element})
			if strings.Contains(f.Message, "The checker confirmed it") {
				t.Errorf("%s: a finding says a probe confirmed it under --no-probe: %s", p.URL, f.Message)
			}
			if f.Severity == check.Warning && !strings.Contains(f.Message, "the checker did not try (--no-probe)") {
				t.Errorf("%s: the script path's warning does not say it was not tried: %s", p.URL, f.Message)
			}
		}
	}
	want := map[string][]row{
		fx["apply-before-pay"]: {{"error", `button "Apply"`}, {"error", `textbox "Email"`}, {"error", `textbox "Discount code"`}},
		fx["script-pay"]:       {{"warning", `button "Pay with saved card"`}, {"warning", `button "Show terms"`}},
	}
	for u, w := range want {
		if len(got[u]) != len(w) {
			t.Errorf("%s: submit-path findings %v, want %v", u, got[u], w)
			continue
		}
		for i := range w {
			if got[u][i] != w[i] {
				t.Errorf("%s: finding %d is %v, want %v", u, i, got[u][i], w[i])
			}
		}
	}
	one := &check.Report{Pages: rep.Pages[1:]}
	if one.ExitCode(check.Error) != 0 || one.ExitCode(check.Warning) != check.ExitFindings {
		t.Errorf("script-pay under --no-probe: exit %d (--fail-on error), %d (warning); want 0 and 1", one.ExitCode(check.Error), one.ExitCode(check.Warning))
	}
}
