package browser_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/browser"
)

// TestSecretsDoNotReachChromium: none of the runtime's environment secrets
// is in the environment of any Chromium process (browser, renderers, GPU,
// utilities), read from /proc.
func TestSecretsDoNotReachChromium(t *testing.T) {
	secrets := map[string]string{
		"OPENAI_API_KEY":    "sk-planted-openai-7f3a",
		"POPPY_MCP_TOKEN":   "planted-mcp-token-91c2",
		"POPPY_TEST_SECRET": "planted-other-secret-5be0",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	b, err := browser.Launch(t.Context(), &browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// A page makes Chromium start a renderer.
	if _, err := b.NewPage(t.Context()); err != nil {
		t.Fatal(err)
	}
	pids := descendants(t, browser.ProcessID(b))
	if len(pids) < 2 {
		t.Fatalf("found only %d Chromium processes: %v", len(pids), pids)
	}
	for _, pid := range pids {
		env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
		if err != nil {
			continue // exited meanwhile
		}
		for k, v := range secrets {
			if bytes.Contains(env, []byte(v)) || bytes.Contains(env, []byte(k+"=")) {
				t.Errorf("process %d has %s in its environment", pid, k)
			}
		}
		if pid == pids[0] && !bytes.Contains(env, []byte("PATH=")) {
			t.Errorf("the browser process has no PATH: the allowlist lost it")
		}
	}
	t.Logf("checked %d processes", len(pids))
}

// descendants lists pid and every process below it, from /proc.
func descendants(t *testing.T, pid int) []int {
	t.Helper()
	parent := map[int]int{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(fields[1])
		parent[p] = pp
	}
	out := []int{pid}
	for changed := true; changed; {
		changed = false
		for p, pp := range parent {
			if slices.Contains(out, pp) && !slices.Contains(out, p) {
				out = append(out, p)
				changed = true
			}
		}
	}
	return out
}
