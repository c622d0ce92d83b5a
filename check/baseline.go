package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// BaselineSchema names the version of a baseline file.
const BaselineSchema = "poppy-browser/check-baseline/v1"

// Baseline is the findings a Company accepted (--baseline FILE): a run
// fails only on findings not in it. A finding is known by its
// fingerprint (its page without query, id, requirement, check, element
// and route, and its occurrence among findings alike), which does not
// change with the message's wording or a probe's timing.
type Baseline struct {
	Schema   string            `json:"schema"`
	Findings []BaselineFinding `json:"findings"`
}

// BaselineFinding is one accepted finding; the fields beside the
// fingerprint are for the people who read the file.
type BaselineFinding struct {
	Fingerprint string   `json:"fingerprint"`
	Page        string   `json:"page"`
	ID          string   `json:"id,omitempty"`
	Requirement string   `json:"requirement"`
	Severity    Severity `json:"severity"`
	Where       string   `json:"where,omitempty"`
	Message     string   `json:"message"`
}

// ReadBaseline reads a baseline file; a file that does not exist is an
// empty baseline (the first --update-baseline writes it).
func ReadBaseline(path string) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Baseline{Schema: BaselineSchema}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the baseline: %w", err)
	}
	var b Baseline
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("reading the baseline %s: %w", path, err)
	}
	if b.Schema != BaselineSchema {
		return nil, fmt.Errorf("reading the baseline %s: schema %q, want %q", path, b.Schema, BaselineSchema)
	}
	return &b, nil
}

// Fingerprints are the fingerprints of the report's findings, in order:
// the same ones SARIF's partialFingerprints carry.
func (r *Report) Fingerprints() [][]string {
	seen := map[string]int{}
	out := make([][]string, len(r.Pages))
	for i, p := range r.Pages {
		for _, f := range p.Findings {
			key := fingerprint(p.URL, f)
			seen[key]++
			out[i] = append(out[i], fmt.Sprintf("%s:%d", key, seen[key]))
		}
	}
	return out
}

// ApplyBaseline marks each finding the baseline holds as accepted
// ([Finding.Baseline]): it no longer fails the run (ExitCode), a JUnit
// case or a SARIF result (baselineState "unchanged"; the others "new").
// It returns how many findings it accepted.
func (r *Report) ApplyBaseline(b *Baseline) int {
	known := map[string]bool{}
	for _, f := range b.Findings {
		known[f.Fingerprint] = true
	}
	n := 0
	prints := r.Fingerprints()
	for i := range r.Pages {
		for j := range r.Pages[i].Findings {
			if known[prints[i][j]] {
				r.Pages[i].Findings[j].Baseline = true
				n++
			}
		}
	}
	r.baselined = true
	r.tally()
	return n
}

// Baseline is the report's findings as a baseline to accept.
func (r *Report) Baseline() *Baseline {
	b := &Baseline{Schema: BaselineSchema, Findings: []BaselineFinding{}}
	prints := r.Fingerprints()
	for i, p := range r.Pages {
		for j, f := range p.Findings {
			b.Findings = append(b.Findings, BaselineFinding{Fingerprint: prints[i][j], Page: withoutQuery(p.URL), ID: f.ID,
				Requirement: f.Requirement, Severity: f.Severity, Where: f.Where(), Message: f.Message})
		}
	}
	slices.SortStableFunc(b.Findings, func(a, b BaselineFinding) int {
		switch {
		case a.Page < b.Page:
			return -1
		case a.Page > b.Page:
			return 1
		}
		return 0
	})
	return b
}

// WriteBaselineFile writes the report's findings as a baseline file
// (--update-baseline), refusing a link as the other outputs do.
func (r *Report) WriteBaselineFile(path string) error {
	return writeFile("--baseline", path, r.WriteBaseline)
}

// WriteBaseline writes the report's findings as a baseline.
func (r *Report) WriteBaseline(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.Baseline())
}
