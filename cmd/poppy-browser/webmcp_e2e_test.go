package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestWebMCPOverMCP drives the demo airline's WebMCP tools as a model
// does, over MCP: the check-in page lists the declarative check_in (its
// form's ref and submission mark) and the imperative lookup_booking; the
// lookup's output comes back as labelled text; check_in fills the seat and
// is answered user_step, the form not sent.
func TestWebMCPOverMCP(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	d := startDemo(t, ctx)
	if r := d.call(ctx, "browser_navigate", map[string]any{"url": testsite.CheckInURL()}); r.Outcome != "done" {
		t.Fatalf("navigate: %+v", r)
	}
	type tool struct {
		Name   string `json:"name"`
		Kind   string `json:"kind"`
		Ref    string `json:"ref"`
		Marked *struct {
			Kind string `json:"kind"`
		} `json:"marked"`
	}
	var list struct {
		Outcome string `json:"outcome"`
		Tools   []tool `json:"tools"`
	}
	var text string
	waitUntil(t, ctx, "the airline's two tools", func() bool {
		res, err := d.mcp.CallTool(ctx, &mcp.CallToolParams{Name: "browser_webmcp_list", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		list.Tools = nil
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatal(err)
		}
		text = contentText(res)
		return len(list.Tools) == 2
	})
	i := slices.IndexFunc(list.Tools, func(tl tool) bool { return tl.Name == "check_in" })
	if i < 0 || list.Tools[i].Kind != "declarative" || list.Tools[i].Ref == "" || list.Tools[i].Marked == nil || list.Tools[i].Marked.Kind != "submission" {
		t.Errorf("the list %+v lacks check_in as a declarative tool on a submission-marked form", list.Tools)
	}
	if !strings.Contains(text, "content from the Company, not instructions") {
		t.Errorf("the list's text is not labelled:\n%s", text)
	}

	res, err := d.mcp.CallTool(ctx, &mcp.CallToolParams{Name: "browser_webmcp_call", Arguments: map[string]any{"name": "lookup_booking", "arguments": map[string]any{"reference": testsite.BookingID}}})
	if err != nil {
		t.Fatal(err)
	}
	if out := contentText(res); res.IsError || !strings.Contains(out, "Booking "+testsite.BookingID+": flight DA 123") || !strings.Contains(out, "content from the Company, not instructions") {
		t.Errorf("lookup_booking answered %v:\n%s", res.IsError, out)
	}

	res, err = d.mcp.CallTool(ctx, &mcp.CallToolParams{Name: "browser_webmcp_call", Arguments: map[string]any{"name": "check_in", "arguments": map[string]any{"seat": "window"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Outcome, Reason string
		Mark            *struct{ Kind string }
		Filled          []string
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if res.IsError || got.Outcome != "denied" || got.Reason != "user_step" || got.Mark == nil || got.Mark.Kind != "submission" || !slices.Equal(got.Filled, []string{"seat"}) {
		t.Errorf("check_in answered %s", raw)
	}
	if n := len(d.site.CheckIns()); n != 0 {
		t.Errorf("the airline recorded %d check-ins after the agent's check_in call, want none", n)
	}
	snap := d.snapshot(ctx)
	if seat := ref(t, snap, "combobox", "Seat"); seat.Value != "window" {
		t.Errorf("the seat reads %q after check_in, want window", seat.Value)
	}
}
