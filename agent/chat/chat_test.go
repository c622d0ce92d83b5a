package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/agent"
	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/internal/secret"
	"github.com/poppy-browser/poppy-browser/spec"
)

const testKey = "sk-test-0123456789abcdef"

// endpoint is a local OpenAI-compatible /chat/completions server that
// answers with scripted replies and records what it received.
type endpoint struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  []map[string]any
	auth    []string
	paths   []string
	replies []map[string]any // each a choices[0].message
	status  int
	raw     string
}

func newEndpoint(t *testing.T, replies ...map[string]any) *endpoint {
	e := &endpoint{replies: replies}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		e.mu.Lock()
		defer e.mu.Unlock()
		e.bodies = append(e.bodies, body)
		e.auth = append(e.auth, r.Header.Get("Authorization"))
		e.paths = append(e.paths, r.Method+" "+r.URL.Path)
		if e.status != 0 {
			w.WriteHeader(e.status)
			io.WriteString(w, e.raw)
			return
		}
		msg := map[string]any{"role": "assistant", "content": nil}
		if len(e.replies) > 0 {
			msg = e.replies[0]
			if len(e.replies) > 1 {
				e.replies = e.replies[1:]
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": body["model"],
			"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "message": msg}},
		})
	}))
	t.Cleanup(e.Close)
	return e
}

func toolReply(name, args string) map[string]any {
	return map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
		"id": "call_1", "type": "function", "function": map[string]any{"name": name, "arguments": args}}}}
}

func contentReply(s string) map[string]any { return map[string]any{"role": "assistant", "content": s} }

func newModel(t *testing.T, e *endpoint, edit func(*Options)) *Model {
	t.Helper()
	o := &Options{BaseURL: e.URL + "/v1", Model: "test-model", APIKey: secret.New(testKey)}
	if edit != nil {
		edit(o)
	}
	m, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func testRequest() *agent.ModelRequest {
	return &agent.ModelRequest{System: "system prompt", User: "user message",
		Tool: agent.ToolSpec{Name: agent.ToolName, Description: "call me", Parameters: map[string]any{"type": "object"}}}
}

func TestWireFormat(t *testing.T) {
	e := newEndpoint(t, toolReply(agent.ToolName, `{"action":{"back":{}}}`))
	m := newModel(t, e, nil)
	rep, err := m.Complete(t.Context(), testRequest())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.ToolCalls) != 1 || rep.ToolCalls[0].Name != agent.ToolName || rep.ToolCalls[0].Arguments != `{"action":{"back":{}}}` {
		t.Fatalf("reply = %+v", rep)
	}
	if e.paths[0] != "POST /v1/chat/completions" {
		t.Errorf("request went to %s", e.paths[0])
	}
	if e.auth[0] != "Bearer "+testKey {
		t.Errorf("Authorization = %q", e.auth[0])
	}
	body := e.bodies[0]
	msgs := body["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("%d messages, want 2: %v", len(msgs), msgs)
	}
	for i, want := range []struct{ role, content string }{{"system", "system prompt"}, {"user", "user message"}} {
		m := msgs[i].(map[string]any)
		if m["role"] != want.role || m["content"] != want.content {
			t.Errorf("message %d = %v, want %s %q", i, m, want.role, want.content)
		}
	}
	tools := body["tools"].([]any)
	if len(tools) != 1 {
		t.Fatalf("%d tools, want 1", len(tools))
	}
	fn := tools[0].(map[string]any)["function"].(map[string]any)
	if tools[0].(map[string]any)["type"] != "function" || fn["name"] != agent.ToolName || fn["parameters"] == nil {
		t.Errorf("tool = %v", tools[0])
	}
	choice, _ := json.Marshal(body["tool_choice"])
	if string(choice) != `{"function":{"name":"AgentOutput"},"type":"function"}` {
		t.Errorf("tool_choice = %s", choice)
	}
	if body["parallel_tool_calls"] != false {
		t.Errorf("parallel_tool_calls = %v, want false", body["parallel_tool_calls"])
	}
	if s, ok := body["stream"]; ok && s != false {
		t.Errorf("stream = %v", s)
	}
	if body["model"] != "test-model" {
		t.Errorf("model = %v", body["model"])
	}
}

// TestRunToDone runs the loop on this model against the local endpoint,
// with replies that need every repair of the tolerant parser.
func TestRunToDone(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	e := newEndpoint(t,
		contentReply("Here is my step:\n```json\n{\"next_goal\":\"look\",\"action\":{\"back\":{}}}\n```"), // JSON in content
		toolReply("back", `{}`),                                                      // action name as tool name
		toolReply(agent.ToolName, `"{\"action\":{\"back\":{}}}"`),                    // encoded twice
		toolReply(agent.ToolName, `{"next_goal":"think"}`),                           // no action: wait
		toolReply(agent.ToolName, `{"action":{"navigate":"https://airline.test/"}}`), // bare value
		toolReply(agent.ToolName, `{"action":{"fly":{}}}`),                           // not repairable: a failed step
		toolReply(agent.ToolName, `{"action":{"done":{"success":true,"text":"finished"}}}`),
	)
	m := newModel(t, e, nil)
	var auditBuf bytes.Buffer
	gate := gate.New(&gate.Options{Control: control.New(nil), Audit: audit.New(&auditBuf, nil)})
	rep, err := agent.NewLoop(&agent.LoopOptions{Gate: gate, Model: m}).Run(ctx, "check in")
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Success || rep.Reason != agent.EndDone || rep.Text != "finished" || rep.Steps != 7 {
		t.Fatalf("report = %+v", rep)
	}
	wantNotes := [][]string{
		{"repaired: " + agent.RepairContent},
		{"repaired: " + agent.RepairToolName},
		{"repaired: " + agent.RepairDoubleJSON},
		{"repaired: " + agent.RepairNoAction},
		{"repaired: " + agent.RepairBareValue},
		nil,
		nil,
	}
	for i, s := range rep.History {
		if fmt.Sprint(s.Notes) != fmt.Sprint(wantNotes[i]) {
			t.Errorf("step %d notes = %q, want %q", s.N, s.Notes, wantNotes[i])
		}
	}
	if h := rep.History[3]; h.Action != agent.ActWait {
		t.Errorf("step 4 action = %s, want wait", h.Action)
	}
	if h := rep.History[5]; h.Result.Reason != spec.ReasonBadReply || !strings.Contains(h.Result.Message, `unknown action "fly"`) {
		t.Errorf("step 6 = %+v, want a failed step naming the unknown action", h.Result)
	}
	// Every later prompt shows the repairs in the history.
	last := e.bodies[len(e.bodies)-1]["messages"].([]any)[1].(map[string]any)["content"].(string)
	if !strings.Contains(last, agent.RepairDoubleJSON) || !strings.Contains(last, `unknown action \"fly\"`) && !strings.Contains(last, `unknown action "fly"`) {
		t.Errorf("the last prompt lacks the history of repairs:\n%s", last)
	}
	for i, a := range e.auth {
		if a != "Bearer "+testKey {
			t.Errorf("request %d: Authorization = %q", i, a)
		}
	}
	if strings.Contains(auditBuf.String(), testKey) {
		t.Error("the key reached the audit log")
	}
}

func TestKeyNeverShows(t *testing.T) {
	e := newEndpoint(t)
	e.status, e.raw = http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided: `+testKey+`","type":"invalid_request_error"}}`
	m := newModel(t, e, nil)
	_, err := m.Complete(t.Context(), testRequest())
	if err == nil {
		t.Fatal("no error for a 401")
	}
	if strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), "\n") {
		t.Errorf("error shows the key or spans lines: %q", err)
	}
	opts := Options{BaseURL: e.URL, Model: "m", APIKey: secret.New(testKey)}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("config", "key", opts.APIKey, "opts", opts)
	js, _ := json.Marshal(opts)
	for _, s := range []string{fmt.Sprintf("%v %+v %#v %s %q", opts, opts, opts, opts.APIKey, opts.APIKey), logged.String(), string(js)} {
		if strings.Contains(s, testKey) {
			t.Errorf("the key shows in %q", s)
		}
	}
}

// TestKeyStaysWithTheEndpoint: a redirect to another origin does not carry
// the Authorization header.
func TestKeyStaysWithTheEndpoint(t *testing.T) {
	other := newEndpoint(t, toolReply(agent.ToolName, `{}`))
	e := newEndpoint(t)
	e.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	})
	m := newModel(t, e, nil)
	_, _ = m.Complete(t.Context(), testRequest())
	other.mu.Lock()
	defer other.mu.Unlock()
	t.Logf("redirect target got %d requests", len(other.auth))
	for _, a := range other.auth {
		if a != "" {
			t.Errorf("the redirect target got Authorization %q", a)
		}
	}
}

func TestLimits(t *testing.T) {
	e := newEndpoint(t, toolReply(agent.ToolName, `{"action":{"back":{}}}`))
	m := newModel(t, e, func(o *Options) { o.MaxRequestBytes = 100; o.MaxCalls = 2 })
	big := testRequest()
	big.User = strings.Repeat("x", 200)
	if _, err := m.Complete(t.Context(), big); err == nil || !strings.Contains(err.Error(), "more than the 100 allowed") {
		t.Errorf("large request: %v", err)
	}
	if len(e.bodies) != 0 {
		t.Errorf("a request over the limit was sent")
	}
	for i := range 2 {
		if _, err := m.Complete(t.Context(), testRequest()); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	if _, err := m.Complete(t.Context(), testRequest()); err == nil || !strings.Contains(err.Error(), "budget of 2 model calls") {
		t.Errorf("third call: %v", err)
	}
	small := newModel(t, e, func(o *Options) { o.MaxResponseBytes = 50 })
	if _, err := small.Complete(t.Context(), testRequest()); err == nil {
		t.Error("a response over the limit was read")
	}
	if _, err := New(&Options{BaseURL: "ftp://x", Model: "m"}); err == nil {
		t.Error("an ftp base URL was accepted")
	}
	if _, err := New(&Options{}); err == nil {
		t.Error("no model name was accepted")
	}
}
