package golden_test

import (
	"path/filepath"
	"testing"

	"github.com/poppy-browser/poppy-browser/internal/golden"
)

// recorder is a testing.TB that keeps whether the check failed.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}

func TestCheck(t *testing.T) {
	path := filepath.Join("testdata", "hello.golden")
	golden.Check(t, path, []byte("hello\n"))

	r := &recorder{TB: t}
	golden.Check(r, path, []byte("goodbye\n"))
	if !r.failed {
		t.Error("a different output passed the golden check")
	}
	r = &recorder{TB: t}
	golden.Check(r, filepath.Join("testdata", "missing.golden"), []byte("x"))
	if !r.failed {
		t.Error("a missing golden file passed")
	}
}
