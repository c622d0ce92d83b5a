package check

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
)

// JUnit XML, as CI systems read it.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes one test suite per page. Each finding is a test case
// of its own, failed when it is at least failOn and not in the baseline
// (so a CI counts one failure per new finding) and passed otherwise, its
// message in system-out;
// each requirement checked on the page with no failed finding is a
// passing case named by its ID; each requirement not checked with these
// options is a skipped case. Names are unique within a suite (a finding's
// is its requirement, check, place and route, numbered when two would
// read alike) and stable across runs. A page that could not be checked is
// one case with an error.
func (r *Report) WriteJUnit(w io.Writer, failOn Severity) error {
	out := junitSuites{Name: "poppy-browser check"}
	for _, p := range r.Pages {
		out.Suites = append(out.Suites, junitPage(p, failOn))
		s := out.Suites[len(out.Suites)-1]
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
		out.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitPage is one page's suite.
func junitPage(p PageReport, failOn Severity) junitSuite {
	s := junitSuite{Name: p.URL}
	names := map[string]int{} // how many cases so far bear a name
	add := func(c junitCase) {
		base := c.Name
		if names[base]++; names[base] > 1 {
			c.Name = fmt.Sprintf("%s #%d", base, names[base])
		}
		c.Classname = p.URL
		s.Cases = append(s.Cases, c)
	}
	if p.Status == StatusFailed {
		add(junitCase{Name: "page", Error: &junitMessage{Message: p.Error}})
		s.Errors++
	}
	failedReq := map[string]bool{}
	for _, f := range p.Findings {
		c := junitCase{Name: junitName(f)}
		line := fmt.Sprintf("%s: %s", f.Severity, f.Message)
		if w := f.Where(); w != "" {
			line += fmt.Sprintf("\n  at %s\n  %s", w, f.HTML)
		}
		if f.Baseline {
			line = "accepted in the baseline: " + line
		}
		if f.Severity.AtLeast(failOn) && !f.Baseline {
			c.Failure = &junitMessage{Message: clipRunes(f.Message, 200), Type: string(f.Severity), Text: line}
			s.Failures++
			failedReq[f.Requirement] = true
		} else {
			c.SystemOut = line
		}
		add(c)
	}
	for _, id := range p.Checked {
		if !failedReq[id] && names[id] == 0 {
			add(junitCase{Name: id})
		}
	}
	for _, id := range p.Skipped {
		if !slices.Contains(p.Checked, id) && names[id] == 0 {
			add(junitCase{Name: id, Skipped: &junitMessage{Message: "not checked with these options"}})
			s.Skipped++
		}
	}
	s.Tests = len(s.Cases)
	return s
}

// junitName names a finding's case: requirement, check, place, route.
func junitName(f Finding) string {
	parts := []string{f.Requirement}
	if f.Check != "" {
		parts = append(parts, f.Check)
	}
	switch {
	case f.Where() != "":
		parts = append(parts, "at "+f.Where())
	case f.Element != "":
		parts = append(parts, "on "+f.Element)
	}
	if f.Route != "" {
		parts = append(parts, "("+f.Route+")")
	}
	return strings.Join(parts, " ")
}

// clipRunes shortens s to n runes, with an ellipsis when it was longer.
func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
