// Package golden compares what a test produced with a file kept in
// testdata, the habit of the go-sdk's and the standard library's tests:
// run the tests with -update to rewrite the files, then read the diff.
//
// It is for tests only.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// update is the -update flag of every test binary that imports this
// package; a flag, like the testing package's own, not program state.
var update = flag.Bool("update", false, "rewrite golden files in testdata")

// Check compares got with the file at path. With -update it writes got
// there first, creating the file's directory.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}
