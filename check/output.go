package check

import (
	_ "embed"
	"encoding/json"
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
			accepted := ""
			if f.Baseline {
				accepted = " [in the baseline]"
			}
			fmt.Fprintf(&b, "  %-7s %s (%s, section %s)%s: %s\n", f.Severity, f.Check, f.Requirement, f.Section, accepted, f.Message)
			if w := f.Where(); w != "" {
				fmt.Fprintf(&b, "          at %s\n          %s\n", w, f.HTML)
			}
		}
		if len(p.Findings) == 0 {
			b.WriteString("  no findings\n")
		}
		b.WriteByte('\n')
	}
	accepted := ""
	if r.Counts.Baselined > 0 {
		accepted = fmt.Sprintf(" (%d in the baseline)", r.Counts.Baselined)
	}
	fmt.Fprintf(&b, "%d page(s), %d could not be checked: %d error(s), %d warning(s), %d info%s; failing on %s\n",
		len(r.Pages), r.Failed, r.Counts.Error, r.Counts.Warning, r.Counts.Info, accepted, failOn)
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
