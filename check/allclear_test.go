package check_test

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/check"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestNoFalseAllClear: each way an agent's action reaches a marked step
// that check once passed (issue 44) is an error that locates the element
// the agent would use, and --fill blames the control whose change
// submitted the form.
func TestNoFalseAllClear(t *testing.T) {
	c := newChecker(t, check.Options{Fill: true})
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	fx := testsite.CheckFixtureURLs()
	want := map[string]struct {
		check string
		at    []string // the start tags' ids of the elements blamed, in order
		not   string   // an element that must not be blamed
		frame bool     // the element is in a frame
	}{
		"route-formaction": {check: check.CheckSubmitPaths, at: []string{`id="donate-button"`}},
		"route-implicit":   {check: check.CheckSubmitPaths, at: []string{`id="code"`}},
		"route-link":       {check: check.CheckSubmitPaths, at: []string{`id="one-click"`}},
		"route-javascript": {check: check.CheckSubmitPaths, at: []string{`id="js-pay"`}},
		"route-face":       {check: check.CheckSubmitPaths, at: []string{`id="express"`}},
		"route-shadow":     {check: check.CheckSubmitPaths, at: []string{`id="later"`}},
		"route-late-frame": {check: check.CheckSubmitPaths, at: []string{`id="helper-pay"`}, frame: true},
		"route-keydown":    {check: check.CheckSubmitPaths, at: []string{`id="coupon"`}},
		"route-change":     {check: check.CheckSubmitPaths, at: []string{`id="plan"`, `id="save-card"`}},
		"route-webmcp":     {check: check.CheckWebMCP, at: []string{`id="pay"`}},
		"fill-select":      {check: check.CheckFill, at: []string{`id="plan"`}},
		"fill-change":      {check: check.CheckFill, at: []string{`id="amount"`}},
		"fill-blame":       {check: check.CheckFill, at: []string{`id="note"`}, not: `id="email"`},
	}
	var names, urls []string
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		urls = append(urls, fx[n])
	}
	rep, err := c.Run(ctx, urls)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		p := rep.Pages[i]
		t.Run(n, func(t *testing.T) {
			if p.Status != check.StatusChecked {
				t.Fatalf("status %s: %s", p.Status, p.Error)
			}
			if code := (&check.Report{Pages: []check.PageReport{p}}).ExitCode(check.Error); code != check.ExitFindings {
				t.Errorf("exit code %d, want %d (a false all-clear)", code, check.ExitFindings)
			}
			w := want[n]
			var got []string
			for _, f := range p.Findings {
				if f.Severity != check.Error || f.Check != w.check {
					continue
				}
				if f.Selector == "" || f.HTML == "" {
					t.Errorf("error not located: %s", f.Message)
					continue
				}
				if w.frame && len(f.FrameSelectors) == 0 {
					t.Errorf("the element in a frame has no frame selectors: %s", f.Where())
				}
				if w.not != "" && strings.Contains(f.HTML, w.not) {
					t.Errorf("blames %s: %s", f.HTML, f.Message)
				}
				for _, id := range w.at {
					if strings.Contains(f.HTML, id) && !contains(got, id) {
						got = append(got, id)
					}
				}
			}
			if strings.Join(got, " ") != strings.Join(w.at, " ") {
				var all []string
				for _, f := range p.Findings {
					all = append(all, string(f.Severity)+" "+f.Check+" "+f.Where()+" "+f.HTML+": "+f.Message)
				}
				t.Errorf("errors of %s located at %q, want %q; findings:\n%s", w.check, got, w.at, strings.Join(all, "\n"))
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
