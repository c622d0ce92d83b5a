package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/mcpserver"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// builtBinary builds the command once per test binary, into the
// temporary cache directory TestMain removes.
var builtBinary = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "bin", "poppy-browser")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("building poppy-browser: %v\n%s", err, out)
	}
	return bin, nil
})

// buildBinary returns the path of the built command.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin, err := builtBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// readmeSnippet returns the command and arguments of the stdio snippet in
// README.md (the JSON block after the "mcp-snippet: stdio" marker).
func readmeSnippet(t *testing.T) (command string, args []string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "<!-- mcp-snippet: stdio")
	if !ok {
		t.Fatal("README.md has no stdio snippet marker")
	}
	_, rest, ok = strings.Cut(rest, "```json\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("no JSON block after the stdio snippet marker")
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(block), &cfg); err != nil {
		t.Fatalf("the README's stdio snippet is not valid JSON: %v", err)
	}
	s, ok := cfg.MCPServers["poppy-browser"]
	if !ok || s.Command == "" {
		t.Fatalf("the snippet has no poppy-browser server: %s", block)
	}
	return s.Command, s.Args
}

// TestReadmeStdioSnippet starts the server as README.md's stdio snippet
// says (its command, found in a directory of a freshly built binary, and
// its arguments), with only what a test must add after them: the
// in-process demo airline as the Company without a join (--company,
// --no-join, --browser-arg), a free live view port and a live URL file of
// its own. A go-sdk client over the command's stdio sees the binary's
// version, calls tools, and never sees the live view's token.
func TestReadmeStdioSnippet(t *testing.T) {
	command, args := readmeSnippet(t)
	if len(args) == 0 || args[0] != "mcp" {
		t.Fatalf("snippet args %q do not start the mcp command", args)
	}
	built := buildBinary(t)
	bin := filepath.Join(filepath.Dir(built), filepath.Base(command))
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	site, _, err := startDemoSite()
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	dir := t.TempDir()
	urlFile := filepath.Join(dir, "live-url")
	// --on-offer records what it got, then hangs: the offer's result must
	// not wait for it.
	onOffer := fmt.Sprintf(`printf '%%s\n' "$0" "$@" > %[1]s/argv; env > %[1]s/env; cat > %[1]s/notice.$$; mv %[1]s/notice.$$ %[1]s/notice.json; sleep 60`, dir)
	args = append(args, "--company", testsite.CompanyDomain, "--no-join", "--live", "127.0.0.1:0", "--live-url-file", urlFile,
		"--on-offer", onOffer, "--on-offer-timeout", "90s")
	for _, a := range site.BrowserArgs() {
		args = append(args, "--browser-arg", a)
	}
	cmd := exec.Command(bin, args...)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	notices := make(chan mcpserver.ControlNotice, 8)
	var logged syncBuffer // every logging notification, as the client got it
	client := mcp.NewClient(&mcp.Implementation{Name: "readme-snippet-test", Version: "1"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			all, _ := json.Marshal(r.Params)
			logged.Write(append(all, '\n'))
			b, _ := json.Marshal(r.Params.Data)
			var n mcpserver.ControlNotice
			if json.Unmarshal(b, &n) == nil && r.Params.Logger == mcpserver.ControlLogger {
				notices <- n
			}
		},
	})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr.String())
	}
	defer cs.Close()
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "notice"}); err != nil {
		t.Fatal(err)
	}

	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimPrefix(strings.TrimSpace(string(out)), "poppy-browser ")
	if got := cs.InitializeResult().ServerInfo.Version; got != want || got == "" {
		t.Errorf("serverInfo.version %q, want --version's %q", got, want)
	}

	var results [][]byte
	call := func(name string, in map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: in})
		if err != nil {
			t.Fatalf("%s: %v\nstderr:\n%s", name, err, stderr.String())
		}
		b, _ := json.Marshal(res)
		results = append(results, b)
		return structured(name, res)
	}
	if r := call("browser_navigate", map[string]any{"url": testsite.BookingURL()}); r["outcome"] != "done" {
		t.Fatalf("navigate: %v", r)
	}
	if r := call("browser_snapshot", map[string]any{"since": 0}); r["outcome"] != "done" || !strings.Contains(r["text"].(string), "Check in") {
		t.Errorf("snapshot: %v", r)
	}
	asked := time.Now()
	if r := call("browser_request_user_control", map[string]any{"reason": "check in yourself"}); r["outcome"] != "done" {
		t.Errorf("request control: %v", r)
	}
	if d := time.Since(asked); d > 10*time.Second {
		t.Errorf("the offer's result took %s while --on-offer hangs, want it at once", d)
	}
	link := offerLink(ctx, t, notices, dir)
	call("browser_control_status", nil)
	call("browser_wait_for_control", map[string]any{"timeout_seconds": 0})

	raw, err := os.ReadFile(urlFile)
	if err != nil {
		t.Fatalf("live URL file: %v", err)
	}
	u, err := url.Parse(strings.TrimSpace(string(raw)))
	token := ""
	if err == nil {
		token = u.Query().Get("token")
	}
	if token == "" || !strings.Contains(stderr.String(), token) {
		t.Fatalf("no live view token in the URL file and on stderr (the User's channels): %q", raw)
	}
	for _, r := range results {
		if bytes.Contains(r, []byte(token)) || bytes.Contains(r, []byte(link)) {
			t.Errorf("a tool result holds the live view token or the User's link: %s", r)
		}
	}
	if l := logged.String(); strings.Contains(l, link) || strings.Contains(l, "/live/link/") || strings.Contains(l, token) {
		t.Errorf("a logging notification holds the User's link or the live view token:\n%s", l)
	}
}

// offerLink waits for the offer's control notification (which carries
// no link: the MCP client is the agent's software) and returns the User's
// link from --on-offer (writing into dir), checking nothing of it is in
// --on-offer's argv or environment.
func offerLink(ctx context.Context, t *testing.T, notices <-chan mcpserver.ControlNotice, dir string) string {
	t.Helper()
	for offered := false; !offered; {
		select {
		case n := <-notices:
			offered = n.Event == "offer"
		case <-ctx.Done():
			t.Fatal("no offer notification before the test's deadline")
		}
	}
	var notice struct {
		Link    string
		Company string
		Offer   struct{ Reason string }
	}
	for {
		raw, _ := os.ReadFile(filepath.Join(dir, "notice.json"))
		if json.Unmarshal(raw, &notice) == nil {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("--on-offer wrote no notice before the test's deadline")
		case <-time.After(50 * time.Millisecond):
		}
	}
	link := notice.Link
	if !strings.Contains(link, "/live/link/") || notice.Offer.Reason != "check in yourself" || notice.Company == "" {
		t.Errorf("--on-offer read %+v, want the User's link, the reason and the Company", notice)
	}
	for _, f := range []string{"argv", "env"} {
		raw, _ := os.ReadFile(filepath.Join(dir, f))
		tok := link[strings.LastIndex(link, "/")+1:]
		if len(raw) == 0 || bytes.Contains(raw, []byte(tok)) {
			t.Errorf("--on-offer's %s is empty or holds the link: %q", f, raw)
		}
	}
	return link
}
