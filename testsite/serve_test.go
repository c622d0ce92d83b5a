package testsite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteCA: the CA replaces a file already there through a temporary
// file renamed over it (nothing else left in the directory), mode 0644;
// a symbolic link, even a dangling one, and a directory are refused.
func TestWriteCA(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeCA(path, []byte("PEM\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "PEM\n" {
		t.Errorf("the file holds %q", b)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("the file's mode: %v, %v, want 0644", fi, err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("the directory holds %d entries, want the CA alone", len(es))
	}
	dangling := filepath.Join(dir, "dangling.pem")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := writeCA(dangling, []byte("PEM\n")); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a dangling symbolic link: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); err == nil {
		t.Error("the dangling link's target was created")
	}
	if err := writeCA(dir, []byte("PEM\n")); err == nil {
		t.Error("a directory was accepted")
	}
}
