package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/mcpserver"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// callBound is how long any call may take to answer: the longest a tool
// may wait by contract (browser_wait_for_control, 60 s) and room to spare.
const callBound = 75 * time.Second

// FuzzToolArguments drives every tool of the catalogue with generated
// arguments through the MCP layer (a go-sdk client over in-memory
// transports) against a real page of the demo airline in real Chromium:
// every call answers within callBound, with a result or a JSON-RPC error,
// and the session still answers afterwards (the process lives: a panic
// that escaped would end the fuzzing worker).
func FuzzToolArguments(f *testing.F) {
	if _, err := browser.FindChromium(); err != nil {
		if testing.Short() {
			f.Skip("no Chromium under -short:", err)
		}
		f.Fatal("FuzzToolArguments needs Chromium (apt-get install chromium):", err)
	}
	tools := spec.Tools()
	slices.Sort(tools)
	index := func(name string) uint8 { return uint8(slices.Index(tools, name)) }
	page := testsite.MarkFixtureURL("forms.html")
	for _, seed := range []struct {
		tool string
		args string
	}{
		{spec.ToolNavigate, `{"url":"` + page + `"}`},
		{spec.ToolSnapshot, `{"elements":true}`},
		{spec.ToolClick, `{"ref":"e3"}`},
		{spec.ToolClick, `{"ref":""}`},
		{spec.ToolHover, `{"ref":"e999999"}`},
		{spec.ToolType, `{"ref":"e2","text":"x","submit":true}`},
		{spec.ToolType, `{"ref":"e2"}`},
		{spec.ToolSelect, `{"ref":"e4","values":[""]}`},
		{spec.ToolPressKey, `{"key":"Enter"}`},
		{spec.ToolPressKey, `{"key":""}`},
		{spec.ToolScroll, `{"direction":"down","amount":-5}`},
		{spec.ToolWait, `{"seconds":0.1,"text":"\u0000"}`},
		{spec.ToolTabs, `{"action":"new","url":"` + page + `"}`},
		{spec.ToolTabs, `{"action":"select","index":-1}`},
		{spec.ToolHandleDialog, `{"accept":true,"prompt_text":"x"}`},
		{spec.ToolScreenshot, `{"ref":"e1","full_page":true}`},
		{spec.ToolRequestUserControl, `{"reason":" "}`},
		{spec.ToolWaitForControl, `{"timeout_seconds":0}`},
		{spec.ToolControlStatus, `null`},
		{spec.ToolBack, `[]`},
		{spec.ToolSnapshot, `not json`},
	} {
		f.Add(index(seed.tool), []byte(seed.args))
	}

	ctx, cancel := context.WithCancel(context.Background())
	f.Cleanup(cancel)
	site, err := testsite.New(nil)
	if err != nil {
		f.Fatal(err)
	}
	if err := site.Start("127.0.0.1:0"); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { site.Close() })
	sv := supervisor.New(&supervisor.Options{
		Company: testsite.CompanyDomain,
		Join:    supervisor.JoinOptions{Skip: true},
		Browser: supervisor.BrowserOptions{Args: site.BrowserArgs()},
		Live:    supervisor.LiveOptions{Off: true},
	})
	startCtx, stopStart := context.WithTimeout(ctx, 2*time.Minute)
	defer stopStart()
	if err := sv.Start(startCtx); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		if err := sv.Close(); err != nil {
			f.Error(err)
		}
	})
	srv := mcpserver.New(sv.Gate(), nil)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fuzz", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = cs.Close() })
	call := func(t *testing.T, name string, args any) (*mcp.CallToolResult, error) {
		cctx, stop := context.WithTimeout(ctx, callBound)
		defer stop()
		start := time.Now()
		res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if errors.Is(err, context.DeadlineExceeded) || time.Since(start) >= callBound {
			t.Fatalf("%s %s: no answer within %s", name, args, callBound)
		}
		return res, err
	}
	nctx, stopNav := context.WithTimeout(ctx, callBound)
	defer stopNav()
	if res, err := cs.CallTool(nctx, &mcp.CallToolParams{Name: spec.ToolNavigate, Arguments: map[string]any{"url": page}}); err != nil || res.IsError {
		f.Fatalf("opening %s: %v", page, err)
	}

	f.Fuzz(func(t *testing.T, tool uint8, args []byte) {
		name := tools[int(tool)%len(tools)]
		var arguments any = map[string]any{"ref": string(args), "url": string(args), "text": string(args), "key": string(args)}
		if json.Valid(args) {
			arguments = json.RawMessage(args)
		}
		// A JSON-RPC error (arguments that are not an object) is an answer
		// too; a closed session is not.
		if _, err := call(t, name, arguments); err != nil && errors.Is(err, mcp.ErrConnectionClosed) {
			t.Fatalf("%s %s ended the session: %v", name, args, err)
		}
		if _, err := call(t, spec.ToolControlStatus, nil); err != nil {
			t.Fatalf("after %s %s the session does not answer: %v", name, args, err)
		}
	})
}
