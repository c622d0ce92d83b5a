package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/spec"
)

// secretLink is the link the fake runtime mints; it must reach the
// client's notification only.
const secretLink = "https://live.example/live/link/SECRET-hand-off-token"

type linkedRuntime struct{ fakeRuntime }

func (linkedRuntime) OfferLinkURL(string) (string, time.Time, error) {
	return secretLink, time.Date(2026, 12, 1, 12, 10, 0, 0, time.UTC), nil
}

// TestOfferLinkAndUserMessage: the offer's notification carries the
// User's link, no tool result does; the User's message at hand back is in
// the notification, browser_wait_for_control's result and the status.
func TestOfferLinkAndUserMessage(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	rts := newFakeRuntimes()
	open := func(ctx context.Context, id string) (Runtime, error) {
		rt, err := rts.open(ctx, id)
		return linkedRuntime{rt.(fakeRuntime)}, err
	}
	h := serveHTTP(t, ctx, NewServer(open, nil), HTTPOptions{})
	notices := make(chan ControlNotice, 8)
	cs, err := h.client(ctx, &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
		b, _ := json.Marshal(r.Params.Data)
		var n ControlNotice
		_ = json.Unmarshal(b, &n)
		notices <- n
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "notice"}); err != nil {
		t.Fatal(err)
	}
	var results []string
	callTool := func(name string, args map[string]any) ControlStatus {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := json.Marshal(res)
		results = append(results, string(b))
		var st ControlStatus
		sb, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(sb, &st)
		return st
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
	if n := next("the offer"); n.Event != "offer" || n.Link != secretLink || n.LinkExpires == nil {
		t.Errorf("offer notice = %+v, want the User's link", n)
	}
	fx := rts.fixture(cs.ID())
	if err := fx.Control.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	next("the take")
	if err := fx.Control.User().HandBackSaying(ctx, "done, I picked 14C"); err != nil {
		t.Fatal(err)
	}
	if n := next("the hand back"); n.UserMessage != "done, I picked 14C" || n.Link != "" {
		t.Errorf("hand back notice = %+v, want the User's message and no link", n)
	}
	if st := callTool(spec.ToolWaitForControl, map[string]any{"timeout_seconds": 1}); st.UserMessage != "done, I picked 14C" {
		t.Errorf("wait_for_control = %+v, want user_message", st)
	}
	if st := callTool(spec.ToolControlStatus, nil); st.UserMessage != "done, I picked 14C" || st.ViewerConnected {
		t.Errorf("status = %+v, want user_message and no viewer", st)
	}
	for _, r := range results {
		if strings.Contains(r, "SECRET") {
			t.Errorf("a tool result holds the User's link: %s", r)
		}
	}
}
