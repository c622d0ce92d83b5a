package check

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Files names the report files to write; an empty path writes nothing.
type Files struct {
	JSON  string // the JSON report (schema poppy-browser/check-report/v1)
	JUnit string // JUnit XML, one test case per finding and per page and requirement
	HTML  string // a self-contained HTML report with screenshots
	SARIF string // SARIF 2.1.0, one result per finding
	// Lighthouse is a Lighthouse-shaped result (category browser-control).
	Lighthouse string
}

// outputs are the files with their flag names, in the order they are written.
func (files Files) outputs() []struct{ flag, path string } {
	return []struct{ flag, path string }{
		{"--json", files.JSON}, {"--junit", files.JUnit}, {"--html", files.HTML},
		{"--sarif", files.SARIF}, {"--lighthouse", files.Lighthouse},
	}
}

// Check refuses, before a run, an output path that is a symbolic link
// (even a dangling one) or anything but a regular file, or whose folder
// does not exist: a CI job learns of a wrong path before it checks pages.
// WriteFiles checks again as it writes.
func (files Files) Check() error {
	for _, o := range files.outputs() {
		if o.path == "" {
			continue
		}
		if err := checkOutput(o.flag, o.path); err != nil {
			return err
		}
		if fi, err := os.Stat(filepath.Dir(o.path)); err != nil || !fi.IsDir() {
			return fmt.Errorf("%s %s: its folder does not exist", o.flag, o.path)
		}
	}
	return nil
}

// WriteFiles writes the report files files names. failOn is the severity
// that fails a JUnit test case. opts shape the SARIF locations.
func (r *Report) WriteFiles(files Files, failOn Severity, opts *SARIFOptions) error {
	writers := map[string]func(io.Writer) error{
		"--json":       r.WriteJSON,
		"--junit":      func(w io.Writer) error { return r.WriteJUnit(w, failOn) },
		"--html":       r.WriteHTML,
		"--sarif":      func(w io.Writer) error { return r.WriteSARIFWith(w, opts) },
		"--lighthouse": r.WriteLighthouse,
	}
	for _, o := range files.outputs() {
		if o.path == "" {
			continue
		}
		if err := writeFile(o.flag, o.path, writers[o.flag]); err != nil {
			return err
		}
	}
	return nil
}

// CheckOutput refuses, as Check does, an output path given with flag
// (the --baseline file --update-baseline writes).
func (Files) CheckOutput(flag, path string) error { return checkOutput(flag, path) }

// checkOutput refuses a path that is a symbolic link or not a regular
// file; a path that does not exist yet is fine.
func checkOutput(flag, path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, path, err)
	case fi.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("%s %s is a symbolic link, which is not followed: give the path of a regular file", flag, path)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s %s is not a regular file", flag, path)
	}
	return nil
}

// writeFile writes a report to path without ever following a symbolic
// link there, as --ca-out does: a link (even a dangling one) or anything
// but a regular file is refused, and the report goes to a new temporary
// file beside it (created with O_EXCL, which never follows a link),
// renamed over path (a rename replaces the name itself, never a link's
// target), so a link put there after the check is replaced, not written
// through.
func writeFile(flag, path string, write func(io.Writer) error) error {
	if err := checkOutput(flag, path); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing to remove
	err = write(tmp)
	if err == nil {
		err = tmp.Chmod(0o644) // a report is meant to be read, by CI and people
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
