package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/gate/gatetest"
	"github.com/poppy-browser/poppy-browser/spec"
)

// raw calls a tool and returns its result, isError or not.
func raw(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: decoding structured content: %v", name, err)
	}
	return res
}

// A failed outcome is isError, a denial is not, and a wrong input says
// what is wrong in words.
func TestFailuresAreErrorsWithReadableMessages(t *testing.T) {
	f := gatetest.New()
	cs := connect(t, New(f.Gate, nil))
	var r gate.Result
	res := raw(t, cs, spec.ToolNavigate, map[string]any{"url": "ftp://x"}, &r)
	if !res.IsError || r.Outcome != spec.OutcomeFailed || r.Reason != spec.ReasonBadURL {
		t.Errorf("bad url: isError %v, %+v", res.IsError, r)
	}
	res = raw(t, cs, spec.ToolScroll, map[string]any{"direction": "down", "amount": -5}, &r)
	if !res.IsError || r.Message != `The input does not fit browser_scroll: "amount" must be at least 0, not -5.` {
		t.Errorf("negative amount: isError %v, %q", res.IsError, r.Message)
	}
	res = raw(t, cs, spec.ToolSelect, map[string]any{"ref": "e2", "values": []string{}}, &r)
	if !res.IsError || !strings.Contains(r.Message, `"values" must hold at least 1`) {
		t.Errorf("no values: isError %v, %q", res.IsError, r.Message)
	}
	res = raw(t, cs, spec.ToolClick, map[string]any{"ref": "e99"}, &r)
	if res.IsError || r.Outcome != spec.OutcomeDenied {
		t.Errorf("a denial is not an error: isError %v, %+v", res.IsError, r)
	}
}

// The offer's rules: a reason, a ref of the current page, the truth when
// the User already holds control, and the offer a new one replaces.
func TestOfferRules(t *testing.T) {
	f := gatetest.New()
	cs := connect(t, New(f.Gate, nil))
	var snap gate.Result
	call(t, cs, spec.ToolSnapshot, nil, &snap)
	var o OfferResult
	if res := raw(t, cs, spec.ToolRequestUserControl, map[string]any{"reason": "  "}, &o); !res.IsError || o.Offer != nil {
		t.Errorf("empty reason: isError %v, %+v", res.IsError, o)
	}
	if raw(t, cs, spec.ToolRequestUserControl, map[string]any{"reason": "Check in", "ref": "e77"}, &o); o.Outcome != spec.OutcomeDenied || o.Reason != spec.ReasonNoSuchRef {
		t.Errorf("unknown ref: %+v", o)
	}
	if res := raw(t, cs, spec.ToolRequestUserControl, map[string]any{"reason": "Check in", "ref": "x12"}, &o); !res.IsError || o.Reason != spec.ReasonBadArgument || o.Offer != nil {
		t.Errorf("a ref that is no ref: isError %v, %+v; want failed/bad_argument and no offer", res.IsError, o)
	}
	call(t, cs, spec.ToolRequestUserControl, map[string]any{"reason": "Check in", "ref": "e4"}, &o)
	first := o.Offer.ID
	call(t, cs, spec.ToolRequestUserControl, map[string]any{"reason": "Check in, please"}, &o)
	if o.Replaced != first || o.Offer.ID == first {
		t.Errorf("second offer: %+v, want replaced %s", o, first)
	}
	if err := f.Control.User().Take(t.Context()); err != nil {
		t.Fatal(err)
	}
	call(t, cs, spec.ToolRequestUserControl, map[string]any{"reason": "Check in"}, &o)
	if o.Outcome != spec.OutcomeDenied || o.Reason != spec.ReasonUserHasControl {
		t.Errorf("offer while the User holds control: %+v", o)
	}
}

// browser_wait_for_control waits while an offer is open and unanswered,
// and returns when the User declines it.
func TestWaitWhileAnOfferIsOpen(t *testing.T) {
	f := gatetest.New()
	cs := connect(t, New(f.Gate, nil))
	var o OfferResult
	call(t, cs, spec.ToolRequestUserControl, map[string]any{"reason": "Check in"}, &o)
	var st ControlStatus
	start := time.Now()
	call(t, cs, spec.ToolWaitForControl, map[string]any{"timeout_seconds": 0.3}, &st)
	if !st.TimedOut || st.Offer == nil || time.Since(start) < 250*time.Millisecond {
		t.Errorf("wait with an open offer returned after %v: %+v", time.Since(start), st)
	}
	done := make(chan ControlStatus, 1)
	go func() {
		var st ControlStatus
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: spec.ToolWaitForControl, Arguments: map[string]any{"timeout_seconds": 60}})
		if err == nil {
			b, _ := json.Marshal(res.StructuredContent)
			_ = json.Unmarshal(b, &st)
		}
		done <- st
	}()
	// The User takes control, then cancels: the wait ends with the turn.
	if err := f.Control.User().Take(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case st := <-done:
		t.Fatalf("the wait ended while the User held control: %+v", st)
	case <-time.After(200 * time.Millisecond):
	}
	if err := f.Control.User().Cancel(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	select {
	case st = <-done:
	case <-ctx.Done():
		t.Fatal("browser_wait_for_control did not return after the User cancelled")
	}
	if st.Controller != spec.ControllerAgent || st.TimedOut || st.Offer != nil {
		t.Errorf("after the User's turn: %+v", st)
	}
}

// tools/list stays small: shared output schemas, short descriptions.
func TestToolsListSize(t *testing.T) {
	f := gatetest.New()
	cs := connect(t, New(f.Gate, nil))
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	// Every tool in 10 KB, half of Playwright MCP's (issue 47).
	if len(b) > 10_000 {
		t.Errorf("tools/list is %d bytes, want at most 10,000", len(b))
	}
	for _, tool := range res.Tools {
		a := tool.Annotations
		if tool.Title == "" || a == nil {
			t.Errorf("%s lacks a title or annotations", tool.Name)
			continue
		}
		// A hint left out is MCP's default: destructive and open world.
		// No tool of ours destroys; only the control tools stay inside.
		if !a.ReadOnlyHint && (a.DestructiveHint == nil || *a.DestructiveHint) {
			t.Errorf("%s changes the page but does not say it is not destructive", tool.Name)
		}
		control := strings.Contains(tool.Name, "control")
		if open := a.OpenWorldHint == nil || *a.OpenWorldHint; open == control {
			t.Errorf("%s: openWorldHint %v", tool.Name, open)
		}
	}
}

// A screenshot goes out as image content; a failure is isError.
func TestResultContent(t *testing.T) {
	shot := result(gate.Result{Outcome: spec.OutcomeDone, Message: "A picture.", Image: []byte("\x89PNG"), ImageType: "image/png"}, false)
	img, ok := shot.Content[0].(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" || string(img.Data) != "\x89PNG" || shot.IsError {
		t.Errorf("screenshot result: %+v", shot.Content)
	}
	snap := result(gate.Result{Outcome: spec.OutcomeDone, Text: "- h1: Title", Elements: []gate.ElementInfo{{Ref: "e1"}}}, false)
	b, _ := json.Marshal(snap.StructuredContent)
	if strings.Contains(string(b), "Title") || strings.Contains(string(b), "elements") {
		t.Errorf("structured content repeats the text or lists elements unasked: %s", b)
	}
	if failed := result(gate.Result{Outcome: spec.OutcomeFailed, Reason: spec.ReasonTimeout}, false); !failed.IsError {
		t.Error("a failed outcome is not isError")
	}
}

// browser_navigate answers with the page it loaded: the model reads it
// without a second call, after the action's message.
func TestNavigateAnswersWithThePage(t *testing.T) {
	f := gatetest.New()
	cs := connect(t, New(f.Gate, nil))
	var r gate.Result
	res := raw(t, cs, spec.ToolNavigate, map[string]any{"url": "https://airline.test/check-in"}, &r)
	if res.IsError || r.Outcome != spec.OutcomeDone || len(res.Content) != 1 {
		t.Fatalf("navigate: isError %v, %+v", res.IsError, r)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.HasPrefix(text, r.Message+"\nPage \"") {
		t.Errorf("navigate's content is not the message and the page:\n%s", text)
	}
}
