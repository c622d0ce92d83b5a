package check

import (
	"fmt"
	"io"
	"os"
)

// Files names the report files to write; an empty path writes nothing.
type Files struct {
	JSON  string // the JSON report (schema poppy-browser/check-report/v1)
	JUnit string // JUnit XML, one test case per page and requirement
	HTML  string // a self-contained HTML report with screenshots
	SARIF string // SARIF 2.1.0, one result per finding
}

// WriteFiles writes the report files files names. failOn is the severity
// that fails a JUnit test case.
func (r *Report) WriteFiles(files Files, failOn Severity) error {
	outputs := []struct {
		path  string
		write func(io.Writer) error
	}{
		{files.JSON, r.WriteJSON},
		{files.JUnit, func(w io.Writer) error { return r.WriteJUnit(w, failOn) }},
		{files.HTML, r.WriteHTML},
		{files.SARIF, r.WriteSARIF},
	}
	for _, o := range outputs {
		if o.path == "" {
			continue
		}
		if err := writeFile(o.path, o.write); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
