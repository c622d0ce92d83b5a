package marks

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestScannerParts checks that every file of js/scanner/ is joined, once,
// and that the joined script starts with the strict-mode prelude and ends
// by closing its function.
func TestScannerParts(t *testing.T) {
	entries, err := fs.ReadDir(scannerFiles, "js/scanner")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	want := slices.Clone(scannerParts)
	slices.Sort(want)
	if !slices.Equal(files, want) {
		t.Errorf("js/scanner/ holds %v, scannerParts joins %v: every file must be listed once", files, scannerParts)
	}
	if !strings.Contains(scannerJS[:strings.Index(scannerJS, "globalThis.poppyMarks ??=")], `"use strict";`) {
		t.Error(`the joined scanner does not start with "use strict" before its function`)
	}
	if !strings.HasSuffix(strings.TrimSpace(scannerJS), "})();") {
		t.Error("the joined scanner does not end by closing and calling its function")
	}
}

// TestEmbeddedScriptSize keeps every embedded script of the package at most
// 300 lines: a longer one is split by concern.
func TestEmbeddedScriptSize(t *testing.T) {
	const maxLines = 300
	err := filepath.WalkDir("js", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".js" {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := strings.Count(string(src), "\n"); n > maxLines {
			t.Errorf("%s has %d lines, more than %d: split it by concern", path, n, maxLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
