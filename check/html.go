package check

import (
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/poppy-browser/poppy-browser/spec"
)

//go:embed report.html.tmpl
var reportHTML string

// RequirementsDoc is where every requirement ID a report cites is
// explained: docs/requirements.md of this repository.
const RequirementsDoc = "https://github.com/poppy-browser/poppy-browser/blob/main/docs/requirements.md"

// RequirementURL links a requirement ID to its entry in [RequirementsDoc].
func RequirementURL(id string) string { return RequirementsDoc + "#" + id }

// htmlReport is what the HTML template reads: the report, each page with
// its anchor and counts, and every finding of every page, most severe
// first.
type htmlReport struct {
	*Report
	Pages []htmlPage
	All   []htmlFinding
}

type htmlPage struct {
	PageReport
	Anchor   string
	Counts   Counts
	Findings []htmlFinding // most severe first
}

// htmlFinding is a finding with its number on its page (the label of its
// outline on the screenshot) and its page.
type htmlFinding struct {
	Finding
	N      int
	Anchor string // the finding's row: "page-2-finding-3"
	Page   *htmlPage
}

func newHTMLReport(r *Report) *htmlReport {
	out := &htmlReport{Report: r, Pages: make([]htmlPage, len(r.Pages))}
	for i, p := range r.Pages {
		hp := &out.Pages[i]
		hp.PageReport, hp.Anchor = p, fmt.Sprintf("page-%d", i+1)
		if p.Status == StatusFailed {
			hp.Counts.Error = 1
		}
		for j, f := range bySeverity(p.Findings) {
			hp.Counts.add(f.Severity)
			hp.Findings = append(hp.Findings, htmlFinding{Finding: f, N: j + 1, Anchor: fmt.Sprintf("%s-finding-%d", hp.Anchor, j+1), Page: hp})
		}
		out.All = append(out.All, hp.Findings...)
	}
	slices.SortStableFunc(out.All, func(a, b htmlFinding) int { return b.Severity.rank() - a.Severity.rank() })
	return out
}

// WriteHTML writes a self-contained HTML report: the pages with their
// counts, every finding most severe first, then each page: its findings,
// the marks table, each view's screenshot with every marked element and
// every finding's element outlined and labelled, and the agent's snapshot
// with marked steps highlighted. It loads nothing from elsewhere, runs no
// script, and fits a phone's width (390 px) as well as a desktop's.
func (r *Report) WriteHTML(w io.Writer) error {
	t, err := template.New("report").Funcs(template.FuncMap{
		"png": func(b []byte) template.URL {
			return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b))
		},
		"lines": func(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") },
		"step":  func(line string) bool { return strings.Contains(line, "(user step:") },
		"requirement": func(id string) string {
			req, _ := spec.RequirementByID(id)
			return req.Text
		},
		"requirementURL":  RequirementURL,
		"requirementsDoc": func() string { return RequirementsDoc },
		// pct places a box on a screenshot scaled to its container's width.
		"pct": func(v, total float64) string {
			if total <= 0 {
				return "0%"
			}
			return fmt.Sprintf("%.3f%%", v/total*100)
		},
		"first": func(i int) bool { return i == 0 },
		"inc":   func(i int) int { return i + 1 },
		// count is a count's badge class: its severity's colour, or a
		// neutral one for zero, so that only what was found stands out.
		"count": func(sev string, n int) string {
			if n == 0 {
				return "zero"
			}
			return "sev-" + sev
		},
	}).Parse(reportHTML)
	if err != nil {
		return err
	}
	return t.Execute(w, newHTMLReport(r))
}
