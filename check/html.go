package check

import (
	_ "embed"
	"encoding/base64"
	"html/template"
	"io"
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

// WriteHTML writes a self-contained HTML report: findings, the marks table,
// each view's screenshot with every marked element outlined and labelled,
// and the agent's snapshot with marked steps highlighted. It loads nothing
// from elsewhere and runs no script.
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
	}).Parse(reportHTML)
	if err != nil {
		return err
	}
	return t.Execute(w, r)
}
