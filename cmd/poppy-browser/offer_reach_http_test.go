package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestHTTPOfferThatReachedNoChannel: over --http, with no URL
// elicitation, MCP App or --on-offer, an offer's result says so with
// "reached": [] (present, empty), and its words send the model to the
// session's live view and --on-offer, not to `poppy-browser live-link`
// (which reads the URL file of a stdio runtime: over HTTP there is none,
// or a stale one from an earlier run).
func TestHTTPOfferThatReachedNoChannel(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	_, args := onDemoSite(t, "mcp", "--company", testsite.CompanyDomain, "--no-join", "--http", "127.0.0.1:0")
	rt := startHTTPRuntime(t, ctx, args)
	c := mcp.NewClient(&mcp.Implementation{Name: "model", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: rt.endpoint,
		HTTPClient: &http.Client{Transport: bearer{rt.token, http.DefaultTransport}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_request_user_control",
		Arguments: map[string]any{"reason": "please pick your seat"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var got struct {
		Offer struct {
			Reached *[]string `json:"reached"`
		} `json:"offer"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.Offer.Reached == nil || len(*got.Offer.Reached) != 0 {
		t.Errorf("offer.reached should be present and empty: %s", raw)
	}
	if strings.Contains(got.Message, "live-link") {
		t.Errorf("over HTTP the result sends the model to live-link, which reads no URL file here: %q", got.Message)
	}
	for _, want := range []string{"live view", "--on-offer"} {
		if !strings.Contains(got.Message, want) {
			t.Errorf("the result does not name %q as where the User's link is: %q", want, got.Message)
		}
	}
}
