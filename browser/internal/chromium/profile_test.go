package chromium

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestProfileOwner(t *testing.T) {
	tests := []struct {
		name    string
		wantPID int
		wantOK  bool
	}{
		{"poppy-browser-profile-4242-123456", 4242, true},
		{"poppy-browser-profile-1-9", 1, true},
		{"poppy-browser-profile-4242", 0, false}, // no suffix: not ours
		{"poppy-browser-profile-x-1", 0, false},
		{"poppy-browser-profile--1", 0, false},
		{"poppy-browser-123456", 0, false}, // someone else's name
		{"poppy-browser-profile-0-1", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pid, ok := profileOwner(tc.name)
			if pid != tc.wantPID || ok != tc.wantOK {
				t.Errorf("profileOwner(%q) = %d, %v; want %d, %v", tc.name, pid, ok, tc.wantPID, tc.wantOK)
			}
		})
	}
}

// TestStaleProfilesRemoved: a profile whose owner process is gone (a
// runtime killed before it could clean up) is removed at the next start;
// our own, a live process's and other names are left alone.
func TestStaleProfilesRemoved(t *testing.T) {
	tmp := t.TempDir()
	// A pid that is certainly gone: a child we started and reaped.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	gone := cmd.Process.Pid
	live := os.Getppid()     // the go tool, alive while we run
	dirs := map[string]bool{ // name: kept
		fmt.Sprintf("%s%d-1", profilePrefix, gone):        false,
		fmt.Sprintf("%s%d-2", profilePrefix, os.Getpid()): true,
		fmt.Sprintf("%s%d-3", profilePrefix, live):        true,
		"poppy-browser-999999999":                         true,
		"unrelated":                                       true,
	}
	for name := range dirs {
		if err := os.MkdirAll(filepath.Join(tmp, name, "Default"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	removeStaleProfiles(tmp)
	for name, kept := range dirs {
		_, err := os.Stat(filepath.Join(tmp, name))
		if exists := err == nil; exists != kept {
			t.Errorf("%s: exists %v after the sweep, want %v", name, exists, kept)
		}
	}
}
