package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// readyRoles are the roles of the ready lines testsite prints, in order.
var readyRoles = []string{"mcp", "mcp-json", "mcp-http", "check"}

// startTestsiteCommand runs `poppy-browser testsite` as a user would, with
// env as its environment, and returns its ready lines by role ("mcp",
// "mcp-json", "mcp-http", "check") and everything it printed up to them,
// once it printed them. The process group is killed and waited for at
// cleanup.
func startTestsiteCommand(t *testing.T, ctx context.Context, env []string) (ready map[string]string, printed []string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, buildBinary(t), "testsite", "--addr", "127.0.0.1:0")
	cmd.Env = env
	var stderr syncBuffer
	out := startInGroup(t, cmd, &stderr)
	type seen struct {
		ready   map[string]string
		printed []string
	}
	lines := make(chan seen, 1)
	go func() {
		s := seen{ready: map[string]string{}}
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s.printed = append(s.printed, sc.Text())
			role, rest, ok := strings.Cut(sc.Text(), ": ")
			if ok && slices.Contains(readyRoles, role) {
				s.ready[role] = rest
			}
			if len(s.ready) == len(readyRoles) {
				lines <- s
				_, _ = io.Copy(io.Discard, out)
				return
			}
		}
		close(lines)
	}()
	select {
	case s, ok := <-lines:
		if !ok {
			t.Fatalf("testsite ended without printing its ready lines %v\nstderr:\n%s", readyRoles, stderr.String())
		}
		return s.ready, s.printed
	case <-ctx.Done():
		t.Fatalf("waiting for testsite's ready lines: %v\nstderr:\n%s", ctx.Err(), stderr.String())
	}
	return nil, nil
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
// ready lines as README shows them: the mcp-json: entry run as an MCP
// client runs it (no shell, absolute paths) joins the airline for real
// (the development key, no --no-join), so the first snapshot shows the
// Session's guest signed in; the mcp-http: line (the mcp: line over
// Streamable HTTP, README's HTTP entry) does the same for a client with
// the bearer token; and the check: line exits 0 with discovery passing.
func TestTestsiteReadyLinesJoin(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 6*time.Minute)
	defer cancel()
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	ready, printed := startTestsiteCommand(t, ctx, env)
	if strings.Contains(ready["mcp"], "--no-join") || !strings.Contains(ready["mcp"], "--assertion-cmd") {
		t.Errorf("mcp: line %q is not a real join", ready["mcp"])
	}
	checkReadmeTestsiteSnippet(t, ready["mcp"], home)
	checkReadmeReadyLines(t, printed, ready, home)
	key := filepath.Join(home, ".config", "poppy-browser", "dev-agent-key.pem")
	if st, err := os.Stat(key); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("development key %s: %v; want it made, mode 0600", key, err)
	}

	// The JSON entry, as a client runs it: no shell, no PATH.
	var entry struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(ready["mcp-json"]), &entry); err != nil || len(entry.MCPServers["poppy-airline"].Args) == 0 {
		t.Fatalf("mcp-json: line is not an mcpServers entry named poppy-airline (%v): %s", err, ready["mcp-json"])
	}
	server := entry.MCPServers["poppy-airline"]
	if !filepath.IsAbs(server.Command) || strings.ContainsAny(strings.Join(server.Args, " "), "$`") {
		t.Errorf("mcp-json: entry needs a shell or a PATH: %s", ready["mcp-json"])
	}
	if i := slices.Index(server.Args, "--ca-file"); i < 0 || !filepath.IsAbs(server.Args[i+1]) {
		t.Errorf("mcp-json: entry's --ca-file is not an absolute path: %v", server.Args)
	}
	jsonCmd := exec.Command(server.Command, server.Args...)
	jsonCmd.Env = env
	var stderr syncBuffer
	jsonCmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "testsite-ready-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: jsonCmd}, nil)
	if err != nil {
		t.Fatalf("connect to the mcp-json: entry: %v\nstderr:\n%s", err, stderr.String())
	}
	checkSignedIn(t, ctx, "mcp-json:", cs, &stderr)
	if err := cs.Close(); err != nil && !errors.Is(err, context.Canceled) {
		t.Logf("closing the MCP session: %v", err)
	}

	// The HTTP entry: the mcp-http: line as pasted in a shell with the
	// token exported, on a free port instead of README's.
	httpLine := strings.Replace(ready["mcp-http"], "--http "+testsite.DemoHTTPAddr, "--http 127.0.0.1:0", 1)
	if httpLine == ready["mcp-http"] {
		t.Fatalf("mcp-http: line does not serve on %s: %s", testsite.DemoHTTPAddr, ready["mcp-http"])
	}
	token := rand.Text()
	httpCmd := exec.CommandContext(ctx, "sh", "-c", "exec "+httpLine)
	httpCmd.Env = append(env, "POPPY_MCP_TOKEN="+token)
	var httpStderr syncBuffer
	_ = startInGroup(t, httpCmd, &httpStderr)
	var endpoint string
	waitUntil(t, ctx, "the mcp-http: line announces its endpoint", func() bool {
		if m := announced.FindStringSubmatch(httpStderr.String()); m != nil {
			endpoint = m[1]
		}
		return endpoint != ""
	})
	if strings.Contains(httpStderr.String(), token) {
		t.Errorf("the mcp-http: server printed the token it was given")
	}
	hcs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint,
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect to the mcp-http: line: %v\nstderr:\n%s", err, httpStderr.String())
	}
	checkSignedIn(t, ctx, "mcp-http:", hcs, &httpStderr)
	_ = hcs.Close()

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

// checkSignedIn: the first snapshot through cs shows the airline with the
// Session's guest signed in, as after a real join.
func checkSignedIn(t *testing.T, ctx context.Context, line string, cs *mcp.ClientSession, stderr *syncBuffer) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_snapshot"})
	if err != nil {
		t.Fatalf("%s browser_snapshot: %v\nstderr:\n%s", line, err, stderr.String())
	}
	snap := structured("browser_snapshot", res)
	text, _ := snap["text"].(string)
	if snap["outcome"] != "done" || !strings.Contains(text, "Demo Airline") || !strings.Contains(text, "Signed in as "+session.DevSubject) {
		t.Errorf("%s first snapshot: want the airline with the Session's guest signed in, got %v\nstderr:\n%s", line, snap, stderr.String())
	}
}

// checkReadmeReadyLines: README.md's testsite output is what testsite
// printed (its first line and its ready lines), with the port, the home
// directory and the binary as README names them: the default port, /home/you,
// poppy-browser on PATH (and an absolute path in the JSON entry). Its HTTP
// entry for the demo airline is the mcp-http: line.
func checkReadmeReadyLines(t *testing.T, printed []string, ready map[string]string, home string) {
	t.Helper()
	port := strings.SplitN(strings.SplitN(ready["mcp"], "--resolve airline.test=127.0.0.1:", 2)[1], " ", 2)[0]
	exe := buildBinary(t)
	normal := func(l string) string {
		to := "poppy-browser"
		if strings.HasPrefix(l, "mcp-json: ") {
			to = "/home/you/go/bin/poppy-browser"
		}
		return strings.NewReplacer(exe, to, home, "/home/you", "127.0.0.1:"+port, "127.0.0.1:8443").Replace(l)
	}
	want := []string{"$ poppy-browser testsite", normal(printed[0]), "…"}
	from := slices.Index(printed, "ready lines (paste the part after the colon):")
	if from < 0 {
		t.Fatalf("testsite printed no ready lines header:\n%s", strings.Join(printed, "\n"))
	}
	for _, l := range printed[from:] {
		want = append(want, normal(l))
	}
	httpEntry := []string{"export POPPY_MCP_TOKEN=$(openssl rand -hex 32)", strings.TrimPrefix(normal("mcp-http: "+ready["mcp-http"]), "mcp-http: ")}
	if *updateReadme {
		writeReadmeGolden(t, "testsite", want)
		writeReadmeGolden(t, "testsite-http", httpEntry)
		return
	}
	if d := diffLines(readmeGolden(t, "testsite"), want); d != "" {
		t.Errorf("README.md's testsite output is not what testsite prints (-update-readme rewrites it): %s", d)
	}
	if d := diffLines(readmeGolden(t, "testsite-http"), httpEntry); d != "" {
		t.Errorf("README.md's HTTP entry for the demo airline is not testsite's mcp-http: line (-update-readme rewrites it): %s", d)
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
