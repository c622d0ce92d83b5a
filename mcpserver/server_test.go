package mcpserver

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/gate/gatetest"
	"github.com/poppy-browser/poppy-browser/internal/golden"
	"github.com/poppy-browser/poppy-browser/spec"
)

// connect serves srv over in-memory transports and returns a client session.
func connect(t testing.TB, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := t.Context()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestServerTools lists every tool with its schemas (golden) and checks
// that the names are exactly docs/reference.md's.
func TestServerTools(t *testing.T) {
	f := gatetest.New()
	cs := connect(t, New(f.Gate, nil))
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.OutputSchema == nil {
			t.Errorf("%s has no output schema", tool.Name)
		}
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
	}
	want := DocumentedTools(t)
	slices.Sort(names)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tool names (-want +got):\n%s", diff)
	}
	slices.SortFunc(res.Tools, func(a, b *mcp.Tool) int { return cmpString(a.Name, b.Name) })
	b, err := json.MarshalIndent(res.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "tools.json"), append(b, '\n'))
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// call calls a tool and decodes its structured content into out.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: isError: %+v", name, res.Content)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: decoding structured content: %v", name, err)
	}
	return res
}

// The hand-over as a model sees it over MCP: a denial is a normal result,
// the offer answers at once, every tool is refused while the User holds
// control, and control comes back with must_reobserve until a snapshot.
func TestServerHandOver(t *testing.T) {
	f := gatetest.New()
	cs := connect(t, New(f.Gate, nil))
	ctx := t.Context()

	var snap gate.Result
	res := call(t, cs, spec.ToolSnapshot, nil, &snap)
	// The text goes over the wire once: as the content, not again in
	// structuredContent.
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, `button "Check in" [e4]`) || snap.Text != "" || len(res.Content) != 1 {
		t.Errorf("snapshot content %q, structured text %q", text, snap.Text)
	}
	var denied gate.Result
	call(t, cs, spec.ToolClick, map[string]any{"ref": "e4"}, &denied)
	if denied.Outcome != spec.OutcomeDenied || denied.Reason != spec.ReasonUserStep || denied.Mark == nil || denied.Mark.Touches != "e4" {
		t.Fatalf("click on the marked submit: %+v", denied)
	}
	var offer OfferResult
	call(t, cs, spec.ToolRequestUserControl, map[string]any{"reason": "Please check in yourself.", "ref": denied.Mark.Touches}, &offer)
	if offer.Outcome != spec.OutcomeDone || offer.Offer.ID == "" || offer.Offer.Step == nil || offer.Offer.Step.Kind != string(spec.Submission) {
		t.Fatalf("offer: %+v", offer)
	}

	if err := f.Control.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	calls := map[string]map[string]any{
		spec.ToolNavigate: {"url": "https://airline.test/"}, spec.ToolBack: nil, spec.ToolSnapshot: nil,
		spec.ToolClick: {"ref": "e6"}, spec.ToolType: {"ref": "e2", "text": "x"}, spec.ToolSelect: {"ref": "e2", "values": []string{"14D"}},
		spec.ToolPressKey: {"key": "Tab"}, spec.ToolScroll: {"direction": "down"}, spec.ToolWait: {"seconds": 1},
		spec.ToolForward: nil, spec.ToolHover: {"ref": "e6"}, spec.ToolScreenshot: nil,
	}
	for name, args := range calls {
		var r gate.Result
		call(t, cs, name, args, &r)
		if r.Outcome != spec.OutcomeDenied || r.Reason != spec.ReasonUserHasControl || r.Page.Controller != spec.ControllerUser {
			t.Errorf("%s while the User holds control: %+v", name, r)
		}
	}
	var st ControlStatus
	call(t, cs, spec.ToolWaitForControl, map[string]any{"timeout_seconds": 0.05}, &st)
	if st.Controller != spec.ControllerUser || !st.TimedOut {
		t.Errorf("wait while the User holds control: %+v", st)
	}

	// The User hands back while the model waits.
	done := make(chan ControlStatus, 1)
	go func() {
		var st ControlStatus
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: spec.ToolWaitForControl, Arguments: map[string]any{"timeout_seconds": 60}})
		if err == nil {
			b, _ := json.Marshal(res.StructuredContent)
			_ = json.Unmarshal(b, &st)
		}
		done <- st
	}()
	if err := f.Control.User().HandBack(ctx); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	select {
	case st = <-done:
	case <-wctx.Done():
		t.Fatal("browser_wait_for_control did not return after the hand back")
	}
	if st.Controller != spec.ControllerAgent || !st.MustReobserve || st.TimedOut || st.LastReturn == nil || st.LastReturn.How != "handed_back" {
		t.Errorf("after hand back: %+v", st)
	}
	var stale gate.Result
	call(t, cs, spec.ToolClick, map[string]any{"ref": "e6"}, &stale)
	if stale.Reason != spec.ReasonStaleRef {
		t.Errorf("old ref after hand back: %+v", stale)
	}
	call(t, cs, spec.ToolSnapshot, nil, &snap)
	call(t, cs, spec.ToolControlStatus, nil, &st)
	if st.MustReobserve {
		t.Errorf("must_reobserve after a snapshot: %+v", st)
	}
}

// TestFailedIsError: a failed outcome sets isError (docs/reference.md, as
// Playwright MCP does) and keeps its structured content; a denial does not.
func TestFailedIsError(t *testing.T) {
	f := gatetest.New()
	cs := connect(t, New(f.Gate, nil))
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "browser_navigate", Arguments: map[string]any{"url": "ftp://airline.test/"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if !res.IsError || !strings.Contains(string(b), `"outcome":"failed"`) {
		t.Errorf("failed navigation: isError %v, structured %s", res.IsError, b)
	}
	_ = f.Control.User().Take(t.Context())
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "browser_snapshot"})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(res.StructuredContent); res.IsError || !strings.Contains(string(b), `"outcome":"denied"`) {
		t.Errorf("denied snapshot: isError %v, structured %s", res.IsError, b)
	}
}
