package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/spec"
)

// Output schemas are kept small and shared: a client compiles each one,
// and tools/list carries every one of them. They name the fields a client
// branches on; the rest is described in docs/reference.md.
var (
	obj = &jsonschema.Schema{Type: "object"}
	// resultSchema is the shape of every action tool's result: the field a
	// client branches on (message, reason, page and the rest are in
	// docs/reference.md and the tool descriptions). Every result has an
	// outcome; the schema does not repeat it as "required" on sixteen
	// tools (tools/list carries each copy).
	resultSchema = &jsonschema.Schema{Type: "object",
		Properties: map[string]*jsonschema.Schema{"outcome": outcome}}
	// offerSchema is browser_request_user_control's.
	offerSchema = &jsonschema.Schema{Type: "object",
		Properties: map[string]*jsonschema.Schema{"outcome": outcome, "offer": obj}}
	statusSchema = &jsonschema.Schema{Type: "object", Required: []string{"controller"},
		Properties: map[string]*jsonschema.Schema{"controller": {Type: "string", Enum: []any{"agent", "user"}}}}
	outcome = &jsonschema.Schema{Enum: []any{"done", "denied", "failed"}}
)

// addAction adds the MCP tool of one catalogue entry through the SDK's
// typed handler: the SDK validates the arguments against the entry's
// schema (argumentErrors words a misfit), and the entry reads them into
// its action, which passes the gate; a denial is a normal result and a
// failure sets isError. The snapshot's text goes out once, as the text
// content (after the action's message when an action that changed the
// page brings it); structuredContent carries the outcome, the page and
// (when asked) the elements.
func (s *Server) addAction(e gate.Entry) {
	tool := &mcp.Tool{Name: e.Tool, Title: e.Title, Description: e.Description, InputSchema: e.Input, OutputSchema: resultSchema,
		Annotations: annotations(e.ReadOnly, e.Idempotent, true)}
	s.inputs[e.Tool] = toolInput{schema: e.Input, action: true}
	mcp.AddTool(s.mcp, tool, func(ctx context.Context, req *mcp.CallToolRequest, raw json.RawMessage) (*mcp.CallToolResult, any, error) {
		a, err := e.Action(raw)
		if err != nil {
			return result(gate.Result{Outcome: spec.OutcomeFailed, Reason: spec.ReasonBadArgument,
				Message: "The input does not fit " + e.Tool + ": " + err.Error() + "."}, false), nil, nil
		}
		var opts struct {
			Elements bool `json:"elements"`
		}
		_ = json.Unmarshal(raw, &opts) // validated by the SDK
		g, ctx, stop, err := s.reg.runtime(ctx, req)
		defer stop()
		if err != nil {
			return result(gate.Result{Outcome: spec.OutcomeFailed, Reason: ReasonOf(err), Message: unavailable(err)}, false), nil, nil
		}
		// An action that changes the page answers with the new page
		// (gate.DoAndSee): the model reads it without a second call.
		res := s.do(ctx, g, a)
		if res.Text != "" && e.Tool != spec.ToolSnapshot {
			res.Text = res.Message + "\n" + res.Text
		}
		return result(res, opts.Elements), nil, nil
	})
}

// annotations are a tool's hints, each only where it differs from the
// MCP default a client assumes (tools/list carries every one): a tool that
// changes the page is not destructive (default true; meaningless for a
// read-only one), and a control tool does not reach the open web
// (openWorldHint, default true).
func annotations(readOnly, idempotent, openWorld bool) *mcp.ToolAnnotations {
	a := &mcp.ToolAnnotations{ReadOnlyHint: readOnly, IdempotentHint: idempotent}
	if !readOnly {
		a.DestructiveHint = ptr(false)
	}
	if !openWorld {
		a.OpenWorldHint = ptr(false)
	}
	return a
}

// shutdownGrace is how long an action may take to stop once the server
// shuts down before its call is answered without it.
const shutdownGrace = 500 * time.Millisecond

// do runs a through g. Once the server shuts down (a signal), the call is
// answered (failed, shutting_down) within shutdownGrace, even if the
// action is slow to stop (a navigation waiting for a server that has not
// answered): the client must hear the truth before the process exits.
func (s *Server) do(ctx context.Context, g *gate.Gate, a gate.Action) gate.Result {
	done := make(chan gate.Result, 1)
	run := func() {
		defer func() {
			if v := recover(); v != nil { // a bug in the action: the call still answers
				s.opts.Logger.Error("panic in a browser action", "tool", a.Tool(), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				done <- gate.Result{Outcome: spec.OutcomeFailed, Reason: spec.ReasonInternal, Message: internalMessage}
			}
		}()
		done <- g.DoAndSeeChanges(ctx, a)
	}
	if !s.reg.goOwned("running a browser action", run) {
		return shuttingDown()
	}
	select {
	case res := <-done:
		return res
	case <-s.shutdown:
	}
	grace := time.NewTimer(shutdownGrace)
	defer grace.Stop()
	select {
	case res := <-done:
		return res
	case <-grace.C:
		return shuttingDown()
	}
}

// shuttingDown is the result of an action stopped by the server's end.
func shuttingDown() gate.Result {
	return gate.Result{Outcome: spec.OutcomeFailed, Reason: spec.ReasonShuttingDown,
		Message: "The browser runtime is shutting down; the action was stopped."}
}

// Caps that keep any result under the go-sdk client's frame limit (16
// MiB: mcp.DefaultMaxLineLength over stdio, mcp.DefaultMaxEventSize over
// HTTP): a client refuses a bigger frame and loses the session. JSON
// escaping makes a byte of text at most 6 on the wire, so 2 MiB of text
// and 3 MiB of structured content stay under it together.
const (
	maxResultText       = 2 << 20
	maxResultStructured = 3 << 20
)

// result is the MCP form of a gate result.
func result(res gate.Result, withElements bool) *mcp.CallToolResult {
	text, img, imgType := capText(res.Text), res.Image, res.ImageType
	res.Text = ""
	if !withElements {
		res.Elements = nil
	}
	out := &mcp.CallToolResult{IsError: res.Outcome == spec.OutcomeFailed}
	b, err := json.Marshal(res)
	if err == nil && len(b) > maxResultStructured && len(res.Elements) > 0 {
		n := len(res.Elements)
		res.Elements = nil
		res.Message += fmt.Sprintf(" The element list (%d elements) was left out: it is too large for one result; read one element's subtree with ref.", n)
		b, err = json.Marshal(res)
	}
	if err != nil { // a Result always marshals
		b = []byte(`{"outcome":"failed","message":"the result could not be encoded"}`)
	}
	out.StructuredContent = json.RawMessage(b)
	switch {
	case text != "" && res.Outcome == spec.OutcomeDone:
		out.Content = []mcp.Content{&mcp.TextContent{Text: text}}
	case len(img) > 0 && res.Outcome == spec.OutcomeDone:
		out.Content = []mcp.Content{&mcp.ImageContent{Data: img, MIMEType: imgType}, &mcp.TextContent{Text: actionText(res)}}
	default:
		out.Content = []mcp.Content{&mcp.TextContent{Text: actionText(res)}}
	}
	return out
}

// capText cuts a page text longer than maxResultText at a character
// boundary and says what was cut.
func capText(text string) string {
	if len(text) <= maxResultText {
		return text
	}
	cut := maxResultText
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + fmt.Sprintf("\n[poppy-browser: the page text was cut here, after %d of its %d bytes; read a part of the page with browser_snapshot and a ref]", cut, len(text))
}

// controlTool is one control tool: the SDK validates its arguments
// against in (argumentErrors words a misfit) and reads them into In; run
// answers with a result value and whether it is an error, or with an
// input-required *mcp.CallToolResult (elicit.go).
type controlTool[In any] struct {
	name, title string
	readOnly    bool
	in, out     *jsonschema.Schema
	run         func(ctx context.Context, req *mcp.CallToolRequest, in In) (any, bool)
}

// addControl adds t through the SDK's typed handler.
func addControl[In any](s *Server, t controlTool[In]) {
	var meta mcp.Meta
	if s.withApp && t.name == spec.ToolRequestUserControl {
		// Only the offer renders the app: its instance follows the
		// whole turn over the live view; a status or wait (called
		// again and again) must not add one to the conversation each
		// time.
		meta = appToolMeta()
	}
	tool := &mcp.Tool{Meta: meta, Name: t.name, Title: t.title, Description: controlWordsOf(t.name).description, InputSchema: t.in, OutputSchema: t.out,
		Annotations: annotations(t.readOnly, t.readOnly, false)}
	s.inputs[t.name] = toolInput{schema: t.in}
	mcp.AddTool(s.mcp, tool, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		v, isErr := t.run(ctx, req, in)
		if r, ok := v.(*mcp.CallToolResult); ok {
			return r, nil, nil // an input-required result (elicit.go)
		}
		r, err := controlResult(v, isErr)
		return r, nil, err
	})
}

// controlResult is the MCP form of a control tool's result value.
func controlResult(v any, isErr bool) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	text, ok := textOf(v)
	if !ok {
		text = string(b)
	}
	return &mcp.CallToolResult{IsError: isErr, StructuredContent: json.RawMessage(b),
		Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
}

// addControlTools adds the tools that offer control to the User and
// report it, each on the calling session's runtime.
func (s *Server) addControlTools() {
	addControl(s, controlTool[gate.RequestInput]{name: spec.ToolRequestUserControl, title: "Offer the User control",
		in: gate.SchemaFor[gate.RequestInput](nil), out: offerSchema,
		run: func(ctx context.Context, req *mcp.CallToolRequest, in gate.RequestInput) (any, bool) {
			g, _, stop, err := s.reg.runtime(ctx, req)
			defer stop()
			if err != nil {
				return OfferResult{Outcome: spec.OutcomeFailed, Reason: ReasonOf(err), Message: unavailable(err)}, true
			}
			if req.Params.RequestState != "" || req.Params.InputResponses != nil {
				return s.offerRetry(ctx, req)
			}
			res, isErr := requestUser(g, in)
			if res.Outcome != spec.OutcomeDone {
				return res, isErr
			}
			return s.reachUser(req, res), false
		}})
	addControl(s, controlTool[gate.NoInput]{name: spec.ToolControlStatus, title: "Control status", readOnly: true,
		in: gate.SchemaFor[gate.NoInput](nil), out: statusSchema,
		run: func(ctx context.Context, req *mcp.CallToolRequest, _ gate.NoInput) (any, bool) {
			g, _, stop, err := s.reg.runtime(ctx, req)
			defer stop()
			if err != nil {
				return browserDown(err), false
			}
			st := statusOf(g.Control().Status(), false)
			st.Elicitation = s.elicitState(req.Session)
			if g.BrowserGone() {
				// Control state is kept; the browser is not there to act in.
				st.BrowserError = "the browser is gone (it closed or crashed)"
				st.Message = "The browser is gone (it closed or crashed): every browser action fails with browser_gone. " + st.Message
			}
			return st, false
		}})
	wfc := gate.SchemaFor[WaitForControlInput](func(s *jsonschema.Schema) {
		s.Properties["timeout_seconds"].Minimum = ptr(0.0)
		s.Properties["timeout_seconds"].Maximum = ptr(MaxWaitForControl.Seconds())
	})
	addControl(s, controlTool[WaitForControlInput]{name: spec.ToolWaitForControl, title: "Wait for control", readOnly: true,
		in: wfc, out: statusSchema,
		run: func(ctx context.Context, req *mcp.CallToolRequest, in WaitForControlInput) (any, bool) {
			g, ctx, stop, err := s.reg.runtime(ctx, req)
			defer stop()
			if err != nil {
				return browserDown(err), false
			}
			st := waitForControl(ctx, g.Control(), in.TimeoutSeconds, s.progress(req))
			st.Elicitation = s.elicitState(req.Session)
			return st, false
		}})
}

// requestUser raises an offer after checking its input: a reason the User
// can read, a ref of the current page when one is given. It says so when
// the User already holds control (no offer is needed) and names the offer
// a new one replaces.
func requestUser(g *gate.Gate, in gate.RequestInput) (OfferResult, bool) {
	ctl := g.Control()
	if strings.TrimSpace(in.Reason) == "" {
		return OfferResult{Outcome: spec.OutcomeFailed, Reason: spec.ReasonBadArgument,
			Message: "Give a reason: one sentence for the User on which step is theirs and why."}, true
	}
	if in.Ref != "" {
		if reason := g.RefStatus(in.Ref); reason == spec.ReasonBadArgument {
			return OfferResult{Outcome: spec.OutcomeFailed, Reason: reason,
				Message: "The ref is not a ref; refs look like e12: take a snapshot and use its refs, or offer control without a ref."}, true
		} else if reason != "" {
			return OfferResult{Outcome: spec.OutcomeDenied, Reason: reason,
				Message: "Ref " + in.Ref + " is not an element of the current page (" + string(reason) + "); take a snapshot and use its refs, or offer control without a ref."}, false
		}
	}
	st := ctl.Status()
	if st.Controller == spec.ControllerUser {
		var open *OfferView
		if st.Offer != nil {
			open = &OfferView{Offer: *st.Offer}
		}
		return OfferResult{Outcome: spec.OutcomeDenied, Reason: spec.ReasonUserHasControl, Offer: open,
			Message: "The User already holds control; no new offer was made. Wait with browser_wait_for_control or continue other work."}, false
	}
	offer := ctl.RequestUser(strings.TrimSpace(in.Reason), g.StepFor(in.Ref))
	res := OfferResult{Outcome: spec.OutcomeDone, Offer: &OfferView{Offer: offer},
		Message: "Offered the User control: tell them which step is theirs, then work on or call browser_wait_for_control."}
	if st.Offer != nil {
		res.Replaced = st.Offer.ID
		res.Message = "This offer replaces " + st.Offer.ID + ". " + res.Message
	}
	return res, false
}
