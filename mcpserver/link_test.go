package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/spec"
)

// secretLink is the control link the fake runtime mints for an offer, as
// the supervisor's Session does for the User's channels (--on-offer, the
// terminal UI). No byte the MCP client receives may hold it.
const secretLink = "https://live.example/live/link/SECRET-hand-off-token"

// linkedRuntime is a runtime that mints the User's control links, under
// every name the Session has used for them.
type linkedRuntime struct{ fakeRuntime }

func (linkedRuntime) OfferLinkURL(string) (string, time.Time, error) {
	return secretLink, time.Date(2026, 12, 1, 12, 10, 0, 0, time.UTC), nil
}

func (r linkedRuntime) OfferLink(id string) (string, error) {
	u, _, err := r.OfferLinkURL(id)
	return u, err
}

// recordingTransport keeps every byte of every response body the client
// reads: results, notifications and the SSE streams that carry them.
type recordingTransport struct {
	next http.RoundTripper
	mu   sync.Mutex
	got  bytes.Buffer
}

func (t *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	resp.Body = &teeBody{ReadCloser: resp.Body, t: t}
	return resp, nil
}

func (t *recordingTransport) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.got.String()
}

type teeBody struct {
	io.ReadCloser
	t *recordingTransport
}

func (b *teeBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.t.mu.Lock()
	b.t.got.Write(p[:n])
	b.t.mu.Unlock()
	return n, err
}

// TestNoControlLinkReachesTheClient: a runtime that mints the User's
// control links gives none to the MCP client: not in the offer's
// notification, not in any other logging or progress notification, not
// in a tool result's content or structuredContent; every byte the client
// reads is checked. The User's message at hand back is in the
// notification, browser_wait_for_control's result and the status.
func TestNoControlLinkReachesTheClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	rts := newFakeRuntimes()
	open := func(ctx context.Context, id string) (Runtime, error) {
		rt, err := rts.open(ctx, id)
		return linkedRuntime{rt.(fakeRuntime)}, err
	}
	h := serveHTTP(t, ctx, NewServer(open, nil), HTTPOptions{})
	notices := make(chan ControlNotice, 8)
	var raw []string
	var rawMu sync.Mutex
	rec := &recordingTransport{next: bearer{h.token, http.DefaultTransport}}
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			b, _ := json.Marshal(r.Params)
			rawMu.Lock()
			raw = append(raw, string(b))
			rawMu.Unlock()
			var n ControlNotice
			db, _ := json.Marshal(r.Params.Data)
			if r.Params.Logger == ControlLogger && json.Unmarshal(db, &n) == nil {
				notices <- n
			}
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			b, _ := json.Marshal(r.Params)
			rawMu.Lock()
			raw = append(raw, string(b))
			rawMu.Unlock()
		},
	})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: h.endpoint, HTTPClient: &http.Client{Transport: rec}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	callTool := func(name string, args map[string]any) ControlStatus {
		t.Helper()
		params := &mcp.CallToolParams{Name: name, Arguments: args}
		params.SetProgressToken("p-" + name)
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := json.Marshal(res)
		rawMu.Lock()
		raw = append(raw, string(b))
		rawMu.Unlock()
		var st ControlStatus
		sb, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(sb, &st)
		return st
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	callTool(spec.ToolRequestUserControl, map[string]any{"reason": "check in yourself"})
	next := func(what string) ControlNotice {
		t.Helper()
		select {
		case n := <-notices:
			return n
		case <-ctx.Done():
			t.Fatalf("no notice of %s", what)
			return ControlNotice{}
		}
	}
	if n := next("the offer"); n.Event != "offer" || n.Offer == nil {
		t.Errorf("offer notice = %+v, want the offer", n)
	}
	callTool(spec.ToolControlStatus, nil)
	fx := rts.fixture(cs.ID())
	if err := fx.Control.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	next("the take")
	callTool(spec.ToolControlStatus, nil)
	if err := fx.Control.User().HandBackSaying(ctx, "done, I picked 14C"); err != nil {
		t.Fatal(err)
	}
	if n := next("the hand back"); n.UserMessage != "done, I picked 14C" {
		t.Errorf("hand back notice = %+v, want the User's message", n)
	}
	if st := callTool(spec.ToolWaitForControl, map[string]any{"timeout_seconds": 1}); st.UserMessage != "done, I picked 14C" {
		t.Errorf("wait_for_control = %+v, want user_message", st)
	}
	if st := callTool(spec.ToolControlStatus, nil); st.UserMessage != "done, I picked 14C" || st.ViewerConnected {
		t.Errorf("status = %+v, want user_message and no viewer", st)
	}
	// Resources and prompts, where a server offers them.
	if res, err := cs.ListResources(ctx, nil); err == nil {
		for _, r := range res.Resources {
			if rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI}); err == nil {
				b, _ := json.Marshal(rr)
				rawMu.Lock()
				raw = append(raw, string(b))
				rawMu.Unlock()
			}
		}
	}
	cs.Close()

	rawMu.Lock()
	defer rawMu.Unlock()
	if len(raw) < 6 {
		t.Fatalf("the client saw %d messages, want the results and notifications of the whole turn", len(raw))
	}
	for _, r := range append(raw, rec.String()) {
		if bytes.Contains([]byte(r), []byte("SECRET-hand-off-token")) || bytes.Contains([]byte(r), []byte("/live/link/")) {
			t.Errorf("the MCP client received the User's control link: %.300s", r)
		}
	}
	if !bytes.Contains([]byte(rec.String()), []byte("done, I picked 14C")) {
		t.Errorf("the recorded bytes lack the User's message: the recorder saw nothing (%d bytes)", len(rec.String()))
	}
}
