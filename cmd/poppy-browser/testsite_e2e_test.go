package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/session"
)

// startTestsiteCommand runs `poppy-browser testsite` as a user would, with
// env as its environment, and returns its ready lines by role ("mcp",
// "check") once it printed them. The process group is killed and waited
// for at cleanup.
func startTestsiteCommand(t *testing.T, ctx context.Context, env []string) map[string]string {
	t.Helper()
	cmd := exec.CommandContext(ctx, buildBinary(t), "testsite", "--addr", "127.0.0.1:0")
	cmd.Env = env
	var stderr syncBuffer
	out := startInGroup(t, cmd, &stderr)
	lines := make(chan map[string]string, 1)
	go func() {
		ready := map[string]string{}
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			role, rest, ok := strings.Cut(sc.Text(), ": ")
			if ok && (role == "mcp" || role == "check") {
				ready[role] = rest
			}
			if len(ready) == 2 {
				lines <- ready
				_, _ = io.Copy(io.Discard, out)
				return
			}
		}
		close(lines)
	}()
	select {
	case ready, ok := <-lines:
		if !ok {
			t.Fatalf("testsite ended without printing its mcp: and check: lines\nstderr:\n%s", stderr.String())
		}
		return ready
	case <-ctx.Done():
		t.Fatalf("waiting for testsite's ready lines: %v\nstderr:\n%s", ctx.Err(), stderr.String())
	}
	return nil
}

// startInGroup starts cmd (made with exec.CommandContext) in a process
// group of its own, its stderr into stderr, and returns its stdout. The
// group is killed when cmd's context ends, and killed and waited for at
// cleanup.
func startInGroup(t *testing.T, cmd *exec.Cmd, stderr *syncBuffer) io.Reader {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return out
}

// TestTestsiteReadyLinesJoin is the first hour of an agent developer and a
// Company developer: `poppy-browser testsite` in one terminal, then its
// mcp: line run as it is under an MCP client joins the airline for real
// (the development key, no --no-join), so the first snapshot shows the
// Session's guest signed in; and its check: line exits 0 with discovery
// passing.
func TestTestsiteReadyLinesJoin(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	ready := startTestsiteCommand(t, ctx, env)
	if strings.Contains(ready["mcp"], "--no-join") || !strings.Contains(ready["mcp"], "--assertion-cmd") {
		t.Errorf("mcp: line %q is not a real join", ready["mcp"])
	}
	checkReadmeTestsiteSnippet(t, ready["mcp"], home)
	key := filepath.Join(home, ".config", "poppy-browser", "dev-agent-key.pem")
	if st, err := os.Stat(key); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("development key %s: %v; want it made, mode 0600", key, err)
	}

	mcpCmd := exec.Command("sh", "-c", "exec "+ready["mcp"])
	mcpCmd.Env = env
	var stderr syncBuffer
	mcpCmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "testsite-ready-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: mcpCmd}, nil)
	if err != nil {
		t.Fatalf("connect to the mcp: line: %v\nstderr:\n%s", err, stderr.String())
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_snapshot"})
	if err != nil {
		t.Fatalf("browser_snapshot: %v\nstderr:\n%s", err, stderr.String())
	}
	snap := structured("browser_snapshot", res)
	text, _ := snap["text"].(string)
	if snap["outcome"] != "done" || !strings.Contains(text, "Demo Airline") || !strings.Contains(text, "Signed in as "+session.DevSubject) {
		t.Errorf("first snapshot: want the airline with the Session's guest signed in, got %v\nstderr:\n%s", snap, stderr.String())
	}
	if err := cs.Close(); err != nil && !errors.Is(err, context.Canceled) {
		t.Logf("closing the MCP session: %v", err)
	}

	report := filepath.Join(t.TempDir(), "report.json")
	checkLine := strings.Replace(ready["check"], " check ", " check --json "+report+" ", 1)
	checkCmd := exec.CommandContext(ctx, "sh", "-c", checkLine)
	checkCmd.Env = env
	if out, err := checkCmd.CombinedOutput(); err != nil {
		t.Fatalf("check: line: %v\n%s", err, out)
	}
	var rep struct {
		Pages []struct {
			Discovery struct {
				OK bool `json:"ok"`
			} `json:"discovery"`
		} `json:"pages"`
	}
	b, err := os.ReadFile(report)
	if err != nil || json.Unmarshal(b, &rep) != nil || len(rep.Pages) == 0 || !rep.Pages[0].Discovery.OK {
		t.Errorf("check report: discovery did not pass (%v): %s", err, b)
	}
}

// checkReadmeTestsiteSnippet: README.md's "poppy-airline" entry, which
// users paste as written, is the testsite's mcp: line with $HOME for the
// home directory, the default port and poppy-browser on PATH.
func checkReadmeTestsiteSnippet(t *testing.T, mcpLine, home string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(raw), `"poppy-airline": {`)
	block, _, _ := strings.Cut(rest, "\n    }")
	var entry struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if err := json.Unmarshal([]byte("{"+block+"}"), &entry); err != nil || entry.Command != "sh" || len(entry.Args) != 2 {
		t.Fatalf("README.md's poppy-airline entry is not an sh -c command (%v): %s", err, block)
	}
	words := func(s string) string {
		return strings.Join(strings.Fields(strings.NewReplacer(`"`, "", "'", "").Replace(s)), " ")
	}
	readme := words(strings.TrimPrefix(entry.Args[1], "exec "))
	exe := buildBinary(t)
	_, port, _ := strings.Cut(strings.SplitN(strings.SplitN(mcpLine, "--resolve airline.test=", 2)[1], " ", 2)[0], ":")
	printed := words(strings.NewReplacer(exe, "poppy-browser", home, "$HOME", "127.0.0.1:"+port, "127.0.0.1:8443").Replace(mcpLine))
	if readme != printed {
		t.Errorf("README.md's poppy-airline entry differs from testsite's mcp: line:\nREADME:  %s\nprinted: %s", readme, printed)
	}
}
