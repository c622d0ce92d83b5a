package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/agent"
	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/testsite"
	"github.com/poppy-browser/poppy-browser/testsite/demoscript"
)

// syncBuffer is an output the test reads after the command returns.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func readAuditFile(t *testing.T, path string) ([]audit.Entry, string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := audit.Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return entries, string(raw)
}

// runDemoTest runs `poppy-browser demo --auto-user` with extra flags and
// checks the story's end: one check-in, aisle, controller=user, and the
// agent's own check-in (the airline's check_in WebMCP tool) refused in the
// audit log.
func runDemoTest(t *testing.T, ctx context.Context, flags ...string) (out string, site *testsite.Site, auditLog string) {
	t.Helper()
	auditPath := t.TempDir() + "/audit.jsonl"
	var stdout, stderr syncBuffer
	args := append([]string{"--auto-user", "--audit-log", auditPath}, flags...)
	err := demoWith(ctx, args, strings.NewReader(""), &stdout, &stderr, func(s *testsite.Site) { site = s })
	out = stdout.String()
	t.Logf("demo output:\n%s\n%s", out, stderr.String())
	if err != nil {
		t.Fatalf("demo: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last := lines[len(lines)-1]; last != "checked in: seat aisle, controller=user (the airline recorded 1 check-in)" {
		t.Errorf("the demo's last line is %q", last)
	}
	checkIns := site.CheckIns()
	if len(checkIns) != 1 || checkIns[0].Seat != "aisle" || checkIns[0].Controller != "user" || !checkIns[0].PassportGiven {
		t.Fatalf("the airline recorded %+v, want one check-in, aisle, controller=user, with a passport", checkIns)
	}
	entries, raw := readAuditFile(t, auditPath)
	refused := false
	for _, e := range entries {
		if e.Event == audit.EventDenied && e.Tool == "browser_webmcp_call" && e.WebMCPTool == "check_in" && e.Reason == "user_step" {
			refused = true
		}
	}
	if !refused {
		t.Errorf("the audit log does not show the agent's check_in tool call refused:\n%s", raw)
	}
	for what, s := range map[string]string{"output": out, "audit log": raw} {
		if strings.Contains(s, testsite.DemoPassport) {
			t.Errorf("the User's passport number reached the %s", what)
		}
	}
	return out, site, raw
}

func TestDemoAutoUser(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	out, _, raw := runDemoTest(t, ctx)
	checkReadmeDemoTranscript(t, out)
	for _, want := range []string{
		`agent: task "Check me in for booking BKG4RT9 tomorrow, aisle seat"`,
		"choose the aisle seat: select",
		"denied (user_step)",
		"agent: offers the User control: airline.test asks you to submit this form yourself",
		"user: pairs a passkey through the terminal's pairing link (Chromium's virtual authenticator stands in for the User's phone)",
		"user: proves it's them with a passkey",
		"user: the live view verified the passkey and now shows the page",
		"user: takes control",
		"user: presses Check in",
		"agent: control is back; reading the page again",
		"agent: done after",
		"seat aisle",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the story lacks %q", want)
		}
	}
	if i, j := strings.Index(out, "user: sees the boarding pass page"), strings.Index(out, "agent: done after"); i < 0 || j < i {
		t.Errorf("the agent reported done before the User handed back")
	}
	// The airline's controller=user rests on a passkey ceremony the
	// runtime verified, and the audit log says so.
	if !strings.Contains(raw, `"how":"take"`) || !strings.Contains(raw, `"proof":{"kind":"passkey","credential":"`) || !strings.Contains(raw, `"user_verified":true`) {
		t.Errorf("the take's audit line does not name its passkey proof:\n%s", raw)
	}
}

// TestDemoOpenAIModel runs the demo on the openai model against a local
// OpenAI-compatible endpoint (answering as the scripted model would): the
// key goes in the Authorization header of the model's requests and
// nowhere else: not to the airline, not in the output or the audit log.
func TestDemoOpenAIModel(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	const key = "sk-demo-test-5f9c2e"
	scripted := agent.NewScripted(demoscript.CheckIn(demoTask))
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		var body struct {
			Messages []struct{ Role, Content string }
		}
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &body); err != nil || len(body.Messages) != 2 {
			http.Error(w, "want two messages", http.StatusBadRequest)
			return
		}
		rep, err := scripted.Complete(r.Context(), &agent.ModelRequest{System: body.Messages[0].Content, User: body.Messages[1].Content})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		tc := rep.ToolCalls[0]
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "c", "object": "chat.completion", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "message": map[string]any{
				"role": "assistant", "tool_calls": []any{map[string]any{"id": "t", "type": "function",
					"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}}}}}}})
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_MODEL", "local-test")
	t.Setenv("OPENAI_API_KEY", key)

	out, site, audit := runDemoTest(t, ctx, "--model", "openai")
	mu.Lock()
	defer mu.Unlock()
	if len(auth) < 4 {
		t.Fatalf("the model endpoint got %d requests", len(auth))
	}
	for i, a := range auth {
		if a != "Bearer "+key {
			t.Errorf("model request %d: Authorization = %q", i, a)
		}
	}
	for _, host := range testsite.Hosts() {
		for _, r := range site.Requests(host) {
			for name, vs := range r.Header {
				if strings.EqualFold(name, "Authorization") || strings.Contains(strings.Join(vs, " "), key) {
					t.Errorf("%s %s %s carried %s", host, r.Method, r.Path, name)
				}
			}
		}
	}
	if strings.Contains(out, key) || strings.Contains(audit, key) {
		t.Error("the key reached the output or the audit log")
	}
}

// TestRunCommand: `run` prints the story and fails when the task ends
// without success (here the step limit, before the User's step).
func TestRunCommand(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	site, args := onDemoSite(t, "run", "--company", testsite.CompanyDomain, "--no-join", "--start", testsite.BookingURL(),
		"--task", demoTask, "--max-steps", "5", "--audit-log", t.TempDir()+"/audit.jsonl")
	var stdout, stderr syncBuffer
	err := run(ctx, args, strings.NewReader(""), &stdout, &stderr)
	out := stdout.String()
	t.Logf("run output:\n%s\n%s", out, stderr.String())
	if err == nil || !strings.Contains(err.Error(), "without success (step_limit)") {
		t.Fatalf("run: err = %v, want the step limit", err)
	}
	// The scripted model may wait a step while the check-in page loads, so
	// the story is checked for its events, not their step numbers.
	for _, want := range []string{"step 1: open the check-in page: click", ": choose the aisle seat: select", ": check in (a step the airline leaves to the User): webmcp_call", "denied (user_step)", "agent: offers the User control", "agent: the task ended after 5 steps (step_limit)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the story lacks %q", want)
		}
	}
	if n := len(site.CheckIns()); n != 0 {
		t.Errorf("the airline recorded %d check-ins", n)
	}
	for _, bad := range [][]string{{"run"}, {"run", "--company", "airline.test"}, {"run", "--company", "x", "--task", "t", "--model", "gpt"}, {"run", "--company", "x", "--task", "t", "--max-steps", "0"}} {
		if err := run(ctx, bad, strings.NewReader(""), io.Discard, io.Discard); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: err = %v, want one line", bad, err)
		}
	}
}
