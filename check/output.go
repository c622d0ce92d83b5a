package check

import (
	_ "embed"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
)

//go:embed report.schema.json
var schemaJSON []byte

// SchemaJSON returns the JSON Schema of the --json report, a fresh copy.
func SchemaJSON() []byte { return append([]byte(nil), schemaJSON...) }

// WriteJSON writes the report as indented JSON (screenshots left out).
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the terminal summary: each page with its marks and
// findings, then the counts. failOn marks which findings fail the run.
func (r *Report) WriteText(w io.Writer, failOn Severity) error {
	var b strings.Builder
	for _, p := range r.Pages {
		fmt.Fprintf(&b, "%s\n", p.URL)
		if p.Status == StatusFailed {
			fmt.Fprintf(&b, "  could not check: %s\n\n", p.Error)
			continue
		}
		if len(p.Marks) == 0 {
			b.WriteString("  no marks\n")
		} else {
			b.WriteString("  marks:\n")
			for _, m := range p.Marks {
				late := ""
				if m.MarkedAtMS != nil {
					late = fmt.Sprintf(" (late: marked at %.0f ms)", *m.MarkedAtMS)
				}
				fmt.Fprintf(&b, "    %-40s %-24s %s%s\n", m.Element, fmt.Sprintf("%q -> %s", m.Value, m.Kind), coversText(m.Covers), late)
			}
		}
		for _, f := range bySeverity(p.Findings) {
			fmt.Fprintf(&b, "  %-7s %s (%s, section %s): %s\n", f.Severity, f.Check, f.Requirement, f.Section, f.Message)
			if w := f.Where(); w != "" {
				fmt.Fprintf(&b, "          at %s\n          %s\n", w, f.HTML)
			}
		}
		if len(p.Findings) == 0 {
			b.WriteString("  no findings\n")
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%d page(s), %d could not be checked: %d error(s), %d warning(s), %d info; failing on %s\n",
		len(r.Pages), r.Failed, r.Counts.Error, r.Counts.Warning, r.Counts.Info, failOn)
	_, err := io.WriteString(w, b.String())
	return err
}

// Where is the element of an element-level finding in one line: the
// frame selectors, the shadow hosts and the selector, joined by " >>> ",
// each step entering a frame's document or a shadow root. It is "" when
// the finding has no selector.
func (f Finding) Where() string {
	if f.Selector == "" {
		return ""
	}
	parts := append(append(slices.Clone(f.FrameSelectors), f.ShadowHosts...), f.Selector)
	return strings.Join(parts, " >>> ")
}

// bySeverity is the findings most severe first, in their order otherwise.
func bySeverity(fs []Finding) []Finding {
	out := slices.Clone(fs)
	slices.SortStableFunc(out, func(a, b Finding) int { return b.Severity.rank() - a.Severity.rank() })
	return out
}

func coversText(cs []Covered) string {
	if len(cs) == 0 {
		return "covers nothing"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Element
		if c.Outside {
			parts[i] += fmt.Sprintf(" (outside, form=%q)", c.Form)
		}
	}
	return "covers " + strings.Join(parts, ", ")
}

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

// WriteJUnit writes one test suite per page and one test case per
// requirement checked (or skipped) on it. A case fails when one of its
// findings reaches failOn; lesser findings go to its system-out. A page that
// could not be checked is one case with an error.
func (r *Report) WriteJUnit(w io.Writer, failOn Severity) error {
	out := junitSuites{Name: "poppy-browser check"}
	for _, p := range r.Pages {
		s := junitSuite{Name: p.URL}
		if p.Status == StatusFailed {
			s.Cases = append(s.Cases, junitCase{Name: "page", Classname: p.URL, Error: &junitMessage{Message: p.Error}})
			s.Errors++
		}
		// A requirement a finding cites is a case even when no check lists
		// it: no finding is left out of the file.
		cases := slices.Clone(p.Checked)
		for _, f := range p.Findings {
			if !slices.Contains(cases, f.Requirement) {
				cases = append(cases, f.Requirement)
			}
		}
		for _, id := range cases {
			c := junitCase{Name: id, Classname: p.URL}
			var fails, notes []string
			for _, f := range p.Findings {
				if f.Requirement != id {
					continue
				}
				line := fmt.Sprintf("%s: %s", f.Severity, f.Message)
				if w := f.Where(); w != "" {
					line += fmt.Sprintf("\n  at %s\n  %s", w, f.HTML)
				}
				if f.Severity.AtLeast(failOn) {
					fails = append(fails, line)
				} else {
					notes = append(notes, line)
				}
			}
			if len(fails) > 0 {
				c.Failure = &junitMessage{Message: fails[0], Type: "finding", Text: strings.Join(fails, "\n")}
				s.Failures++
			}
			c.SystemOut = strings.Join(notes, "\n")
			s.Cases = append(s.Cases, c)
		}
		for _, id := range p.Skipped {
			s.Cases = append(s.Cases, junitCase{Name: id, Classname: p.URL, Skipped: &junitMessage{Message: "not checked with these options"}})
			s.Skipped++
		}
		s.Tests = len(s.Cases)
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
		out.Skipped += s.Skipped
		out.Suites = append(out.Suites, s)
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
