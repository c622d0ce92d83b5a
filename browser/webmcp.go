package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/webmcp"

	cdpconn "github.com/poppy-browser/poppy-browser/browser/internal/cdp"
)

// This file follows the page's WebMCP tools (the WebMCP draft's
// document.modelContext: imperative registerTool, declarative <form
// toolname>) through Chromium's CDP domain WebMCP: toolsAdded and
// toolsRemoved keep each frame's list, a new document drops its frame's
// list, and invokeTool runs one, answered by toolResponded.

// webmcpJS reads whether the top document has the WebMCP API.
//
//go:embed js/webmcp.js
var webmcpJS string

// ErrWebMCPUnsupported means the browser does not run WebMCP: it was
// started without the feature (--enable-features=WebMCP) or is too old.
var ErrWebMCPUnsupported = errors.New("the browser does not run WebMCP (start Chromium with --enable-features=WebMCP)")

// WebMCPTool is one tool a document registered. Name, Description and
// InputSchema are the page's content.
type WebMCPTool struct {
	Name        string
	Description string
	// InputSchema is the tool's JSON schema as the page gave it (for a
	// declarative tool, built by the browser from the form's fields);
	// nil when it has none.
	InputSchema json.RawMessage
	// Declarative: the tool is a <form toolname>; Autosubmit: it has
	// toolautosubmit (the browser submits the form it fills).
	Declarative, Autosubmit bool
	// ReadOnly is the page's readOnly hint.
	ReadOnly bool
	// DescriptionCut and SchemaCut say the page's description was cut, or
	// its schema dropped, for its size (see maxKeptDescription).
	DescriptionCut, SchemaCut bool
}

// webmcpState is a target's WebMCP tools, by frame, in registration order.
// Guarded by the target's mu.
type webmcpState struct {
	err   error // why the domain could not be enabled; nil when it is on
	known bool  // the enable has answered
	tools map[cdp.FrameID][]WebMCPTool
	// dropped counts, by frame, the tools past maxKeptTools.
	dropped map[cdp.FrameID]int
}

// Bounds on what a page's tools may keep in this process: a page that
// registers thousands of tools with large descriptions and schemas must
// not grow the runtime's memory without end. Past maxKeptTools a frame's
// tools are counted, not kept; a description is cut at maxKeptDescription
// bytes and a schema past maxKeptSchema bytes is dropped (SchemaCut).
const (
	maxKeptTools       = 1000
	maxKeptDescription = 4 << 10
	maxKeptSchema      = 16 << 10
)

// trackWebMCP follows the domain's tool lists in t (see configure, which
// enables it).
func (t *tgt) trackWebMCP() {
	t.webmcp.tools = map[cdp.FrameID][]WebMCPTool{}
	t.webmcp.dropped = map[cdp.FrameID]int{}
	track(t, webmcp.ToolsAdded, func(ev webmcp.EventToolsAdded) {
		for _, tl := range ev.Tools {
			if tl == nil {
				continue
			}
			w := WebMCPTool{Name: tl.Name, Description: tl.Description, Declarative: tl.BackendNodeID != 0}
			if len(w.Name) > maxKeptDescription {
				w.Name = w.Name[:maxKeptDescription] // a longer name names no tool the gate shows
			}
			if len(w.Description) > maxKeptDescription {
				w.Description, w.DescriptionCut = strings.ToValidUTF8(w.Description[:maxKeptDescription], ""), true
			}
			switch {
			case len(tl.InputSchema) > maxKeptSchema:
				w.SchemaCut = true
			case len(tl.InputSchema) > 0:
				w.InputSchema = json.RawMessage(append([]byte(nil), tl.InputSchema...))
			}
			if a := tl.Annotations; a != nil {
				w.Autosubmit, w.ReadOnly = a.Autosubmit, a.ReadOnly
			}
			list := t.webmcp.tools[tl.FrameID]
			list = removeTool(list, w.Name)
			if len(list) >= maxKeptTools {
				t.webmcp.dropped[tl.FrameID]++
				continue
			}
			t.webmcp.tools[tl.FrameID] = append(list, w)
		}
	})
	track(t, webmcp.ToolsRemoved, func(ev webmcp.EventToolsRemoved) {
		for _, tl := range ev.Tools {
			if tl != nil {
				t.webmcp.tools[tl.FrameID] = removeTool(t.webmcp.tools[tl.FrameID], tl.Name)
			}
		}
	})
}

// dropWebMCPLocked forgets the tools of frame's document (a new document
// starts with none) and of frames no longer known.
func (t *tgt) dropWebMCPLocked(frame cdp.FrameID) {
	delete(t.webmcp.tools, frame)
	delete(t.webmcp.dropped, frame)
	for id := range t.webmcp.tools {
		if t.frames[id] == nil {
			delete(t.webmcp.tools, id)
			delete(t.webmcp.dropped, id)
		}
	}
}

func removeTool(list []WebMCPTool, name string) []WebMCPTool {
	out := list[:0:0]
	for _, tl := range list {
		if tl.Name != name {
			out = append(out, tl)
		}
	}
	return out
}

// setWebMCP records the answer to WebMCP.enable.
func (t *tgt) setWebMCP(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.webmcp.known = true
	if err != nil {
		t.webmcp.err = fmt.Errorf("%w: %v", ErrWebMCPUnsupported, err)
	}
}

// WebMCPTools lists the tools the page's top document registered, in the
// order it registered them. Tools of other frames (iframes, a third
// party's above all) are not among them. It fails with
// [ErrWebMCPUnsupported] when the browser does not run WebMCP.
func (p *Page) WebMCPTools() ([]WebMCPTool, error) {
	t := p.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.webmcp.err != nil {
		return nil, t.webmcp.err
	}
	return append([]WebMCPTool(nil), t.webmcp.tools[t.mainID]...), nil
}

// WebMCPToolsDropped is how many tools the top document registered past
// the number this process keeps (1,000): they are not listed, nor callable.
func (p *Page) WebMCPToolsDropped() int {
	t := p.t
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.webmcp.dropped[t.mainID]
}

// WebMCPSupported tells a page without tools from a browser without
// WebMCP: an attached browser may enable the CDP domain yet run without
// the feature, and then no secure document has document.modelContext. It
// returns [ErrWebMCPUnsupported] for such a browser, and nil when the top
// document has the API or is not a secure context (where WebMCP never
// runs: it has no tools).
func (p *Page) WebMCPSupported(ctx context.Context) error {
	var r struct {
		API    bool `json:"api"`
		Secure bool `json:"secure"`
	}
	if err := p.MainFrame().Call(ctx, UtilityWorld, webmcpJS, &r); err != nil {
		return err
	}
	if r.Secure && !r.API {
		return ErrWebMCPUnsupported
	}
	return nil
}

// WebMCPCall is one invocation of a page's tool, started by
// [Page.InvokeWebMCP]. Done is closed when the page answered (Result).
type WebMCPCall struct {
	t    *tgt
	id   string
	done chan struct{}
	once sync.Once
	res  WebMCPResult
}

// WebMCPResult is a tool's answer. Output is the page's content.
type WebMCPResult struct {
	// Status is "Completed", "Canceled" or "Error".
	Status string
	// Output is what the tool returned, as JSON (a string, an object, a
	// list); nil when it returned nothing.
	Output json.RawMessage
	// Error is the browser's text for a failed call (the page's exception
	// included): page content.
	Error string
}

// Done is closed when the page answered the call.
func (c *WebMCPCall) Done() <-chan struct{} { return c.done }

// Result is the page's answer; valid once Done is closed.
func (c *WebMCPCall) Result() WebMCPResult { return c.res }

// Cancel cancels the call: the page's tool sees its call cancelled (a
// toolcancel event) and Done closes.
func (c *WebMCPCall) Cancel(ctx context.Context) error {
	err := c.t.call(ctx, browserSide, webmcp.CommandCancelInvocation, webmcp.CancelInvocationParams{InvocationID: c.id}, nil)
	c.finish(WebMCPResult{Status: string(webmcp.InvocationStatusCanceled)})
	return err
}

func (c *WebMCPCall) finish(r WebMCPResult) {
	c.once.Do(func() {
		c.res = r
		close(c.done)
	})
}

// ErrNoWebMCPTool means the top document has no tool of that name.
var ErrNoWebMCPTool = errors.New("no such WebMCP tool")

// InvokeWebMCP starts the top document's tool name with input (a JSON
// object). It returns once the browser took the call; the page answers
// later (see [WebMCPCall]). The call ends, cancelled, when ctx does.
func (p *Page) InvokeWebMCP(ctx context.Context, name string, input json.RawMessage) (*WebMCPCall, error) {
	t := p.t
	t.mu.Lock()
	err, main := t.webmcp.err, t.mainID
	t.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	events, stop := t.s.Subscribe(webmcp.ToolResponded.Method)
	var res webmcp.InvokeToolResult
	if err := t.call(ctx, mainThread, webmcp.CommandInvokeTool,
		webmcp.InvokeToolParams{FrameID: main, ToolName: name, Input: jsonv2.Value(input)}, &res); err != nil {
		stop()
		if cdpCode(err) == codeInvalidParams {
			return nil, fmt.Errorf("%w: %s", ErrNoWebMCPTool, name)
		}
		return nil, err
	}
	c := &WebMCPCall{t: t, id: res.InvocationID, done: make(chan struct{})}
	t.b.wg.Go(func() {
		defer stop()
		for {
			select {
			case raw, ok := <-events:
				if !ok {
					c.finish(WebMCPResult{Status: string(webmcp.InvocationStatusError), Error: "the page went away"})
					return
				}
				ev, ok := cdpconn.Decode[webmcp.EventToolResponded](raw)
				if !ok || ev.InvocationID != c.id {
					continue
				}
				r := WebMCPResult{Status: string(ev.Status), Error: ev.ErrorText}
				if len(ev.Output) > 0 {
					r.Output = json.RawMessage(append([]byte(nil), ev.Output...))
				}
				if ev.Exception != nil && r.Error == "" {
					r.Error = ev.Exception.Description
				}
				c.finish(r)
				return
			case <-ctx.Done():
				cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
				_ = c.Cancel(cctx)
				cancel()
				return
			case <-c.done:
				return
			case <-t.s.Done():
				c.finish(WebMCPResult{Status: string(webmcp.InvocationStatusError), Error: "the tab is closed"})
				return
			}
		}
	})
	return c, nil
}
