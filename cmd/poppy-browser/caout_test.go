package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCAOutRefusesASymlink: testsite --ca-out naming a symbolic link fails
// at once with one line saying so, and the link's target is untouched.
func TestCAOutRefusesASymlink(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // the development key made for the run
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "ca.pem")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	err := run(ctx, []string{"testsite", "--addr", "127.0.0.1:0", "--ca-out", link}, nil, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "symbolic link") || strings.Contains(err.Error(), "\n") {
		t.Errorf("testsite --ca-out LINK: %v, want one line refusing the symbolic link", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the link's target now holds %q", b)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi, err)
	}
}
