package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/check"
	"github.com/poppy-browser/poppy-browser/internal/cli"
)

// TestCheckCIUsage: what a CI job gets wrong is a one-line usage error
// (exit 2) before any browser starts: a report path that is a link, a
// header value on the command line (never echoed), --update-baseline
// without --baseline, a bad --source-root, a misspelt key in
// poppy-check.yaml; and the config file's pages are checked when the
// command line gives none.
func TestCheckCIUsage(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	link := filepath.Join(dir, "report.sarif")
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), link); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, string) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		var stdout, stderr bytes.Buffer
		err := check.RunCommand(ctx, args, &stdout, &stderr, nil)
		var ee *cli.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("%q: %v, want an exit error", args, err)
		}
		return ee.ExitCode(), ee.Msg
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sarif", link, "https://airline.test/"}, "--sarif " + link + " is a symbolic link"},
		{[]string{"--json", dir, "https://airline.test/"}, "is not a regular file"},
		{[]string{"--header", "Authorization=Bearer s3cr3t", "https://airline.test/"}, "not on the command line"},
		{[]string{"--update-baseline", "https://airline.test/"}, "--update-baseline needs --baseline FILE"},
		{[]string{"--source-root", "https://a.test/=/srv", "https://airline.test/"}, "inside the repository"},
		{[]string{"--storage-state", filepath.Join(dir, "none.json"), "https://airline.test/"}, "--storage-state"},
	} {
		code, msg := run(tc.args...)
		if code != 2 || !strings.Contains(msg, tc.want) || strings.Contains(msg, "s3cr3t") {
			t.Errorf("%q: exit %d %q, want 2 and %q", tc.args, code, msg, tc.want)
		}
	}
	os.WriteFile(filepath.Join(dir, "poppy-check.yaml"), []byte("fail-onn: warning\n"), 0o644)
	if code, msg := run("https://airline.test/"); code != 2 || !strings.Contains(msg, "poppy-check.yaml:1: no flag --fail-onn") {
		t.Errorf("misspelt config key: exit %d %q", code, msg)
	}
	// The file's flags apply, and the command line's win: the file's
	// --fail-on is refused only when the command line gives none.
	os.WriteFile(filepath.Join(dir, "poppy-check.yaml"), []byte("pages: []\nfail-on: sometimes\n"), 0o644)
	if code, msg := run("https://airline.test/"); code != 2 || !strings.Contains(msg, "--fail-on") {
		t.Errorf("config's fail-on: exit %d %q", code, msg)
	}
	os.WriteFile(filepath.Join(dir, "poppy-check.yaml"), []byte("fail-on: sometimes\nwatch: 5m\n"), 0o644)
	if code, msg := run("--fail-on", "error", "--watch", "1s"); code != 2 || !strings.Contains(msg, "give at least one URL") {
		t.Errorf("command line over the config: exit %d %q, want it to pass the flags and ask for a URL", code, msg)
	}
}
