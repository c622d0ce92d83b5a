package check_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poppy-browser/poppy-browser/check"
)

// TestConfig: poppy-check.yaml's keys are flags (lists repeat them),
// pages are the URLs, flags are more flags as written; a misspelt key is
// an error naming its line; no file is no config.
func TestConfig(t *testing.T) {
	known := func(name string) bool {
		return map[string]bool{"crawl": true, "exclude": true, "fail-on": true, "baseline": true, "fill": true, "source-root": true}[name]
	}
	cfg, err := check.ParseConfig("poppy-check.yaml", []byte(`
pages:
  - https://staging.example/
  - https://staging.example/checkout
crawl: 50
exclude: ["/blog/*", "*.pdf"]
fail-on: warning
baseline: .poppy/check-baseline.json
fill: true
source-root: https://staging.example/=templates
flags: [--no-discovery]
`), known)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"https://staging.example/", "https://staging.example/checkout"}, cfg.Pages); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	want := []string{"--crawl=50", "--exclude=/blog/*", "--exclude=*.pdf", "--fail-on=warning", "--baseline=.poppy/check-baseline.json",
		"--fill=true", "--source-root=https://staging.example/=templates", "--no-discovery"}
	if diff := cmp.Diff(want, cfg.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	for in, msg := range map[string]string{
		"fail-onn: warning\n":  `poppy-check.yaml:1: no flag --fail-onn`,
		"crawl: 5\ncrawl: 6\n": `poppy-check.yaml:2: "crawl" is given twice`,
		"- a\n- b\n":           "want a mapping",
		"exclude: {a: b}\n":    "want a value or a list",
		"pages: [https://a/\n": "poppy-check.yaml",
	} {
		if _, err := check.ParseConfig("poppy-check.yaml", []byte(in), known); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want an error saying %q", in, err, msg)
		}
	}
	if cfg, err := check.LoadConfig(filepath.Join(t.TempDir(), check.ConfigFile), known); cfg != nil || err != nil {
		t.Errorf("no file: %+v %v, want no config", cfg, err)
	}
	empty := filepath.Join(t.TempDir(), check.ConfigFile)
	os.WriteFile(empty, nil, 0o644)
	if cfg, err := check.LoadConfig(empty, known); err != nil || len(cfg.Args) != 0 {
		t.Errorf("an empty file: %+v %v", cfg, err)
	}
}
