package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/spec"
)

// TestExtAppsVendored: the vendored browser build of
// @modelcontextprotocol/ext-apps is the one its package.json names, by
// the hash recorded beside it, with its licence.
func TestExtAppsVendored(t *testing.T) {
	var pkg struct{ Name, Version, License string }
	raw, err := os.ReadFile("app/ext-apps/package.json")
	if err != nil || json.Unmarshal(raw, &pkg) != nil {
		t.Fatalf("package.json: %v", err)
	}
	if pkg.Name != "@modelcontextprotocol/ext-apps" || pkg.Version != "2.0.4" || pkg.License != "MIT" {
		t.Errorf("vendored package %+v, want @modelcontextprotocol/ext-apps 2.0.4 (MIT)", pkg)
	}
	want, _ := os.ReadFile("app/ext-apps/app-with-deps.js.sha256")
	bundle, err := os.ReadFile("app/ext-apps/app-with-deps.js")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(bundle)
	if got := hex.EncodeToString(sum[:]); got != strings.TrimSpace(string(want)) {
		t.Errorf("app-with-deps.js hashes to %s, not the %s recorded for version %s: re-vendor it (npm pack @modelcontextprotocol/ext-apps@%s)", got, want, pkg.Version, pkg.Version)
	}
	if lic, err := os.ReadFile("app/ext-apps/LICENSE"); err != nil || !strings.Contains(string(lic), "MIT") {
		t.Errorf("no MIT licence beside the vendored build: %v", err)
	}
	if html := appHTML(); !strings.Contains(html, "const ExtApps={App:") || strings.Contains(html, "{{SCRIPT}}") {
		t.Error("the app's HTML does not hold the SDK and the app script")
	}
}

// appRuntime is a runtime with a live view for the app.
type appRuntime struct{ fakeRuntime }

const appSecret = "APP-LOGIN-SECRET-for-the-users-app"

func (appRuntime) AppLogin(id string) (string, string, string, time.Time, error) {
	return appSecret, "ws://127.0.0.1:4567/live/ws", "http://127.0.0.1:4567", time.Date(2026, 12, 1, 12, 10, 0, 0, time.UTC), nil
}
func (appRuntime) LiveOrigin() string { return "http://127.0.0.1:4567" }

// TestAppDeclaredAndLoginOnlyInMeta: the offer's tool declares the app;
// resources/read serves it as an MCP App with a CSP naming the live
// view and no secret; a client that declared the MCP Apps extension gets
// the app's login in the offer result's _meta only (not in content or
// structuredContent), and offer.reached names "app"; a client that did
// not gets no login at all.
func TestAppDeclaredAndLoginOnlyInMeta(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	rts := newFakeRuntimes()
	srv := NewServer(func(ctx context.Context, id string) (Runtime, error) {
		rt, err := rts.open(ctx, id)
		return appRuntime{rt.(fakeRuntime)}, err
	}, nil)
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	connectApp := func(withUI bool) *mcp.ClientSession {
		caps := &mcp.ClientCapabilities{}
		if withUI {
			caps.AddExtension(AppExtension, map[string]any{"mimeTypes": []string{AppMIMEType}})
		}
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.MCP().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ss.Close() })
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{Capabilities: caps}).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}

	cs := connectApp(true)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		ui, _ := tool.Meta["ui"].(map[string]any)
		if got := ui["resourceUri"] == AppURI; got != (tool.Name == spec.ToolRequestUserControl) {
			t.Errorf("%s: _meta %v, want the app declared by browser_request_user_control alone", tool.Name, tool.Meta)
		}
	}
	// The app's runtime opens with the session; the offer first.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: spec.ToolRequestUserControl, Arguments: map[string]any{"reason": "check in yourself"}})
	if err != nil || res.IsError {
		t.Fatalf("offer: %v %+v", err, res)
	}
	login, _ := res.Meta[AppMetaKey].(map[string]any)
	if login["viewer"] != appSecret || login["ws"] != "ws://127.0.0.1:4567/live/ws" {
		t.Errorf("the offer's _meta %v, want the app's login", res.Meta)
	}
	content, _ := json.Marshal(res.Content)
	structured, _ := json.Marshal(res.StructuredContent)
	if strings.Contains(string(content)+string(structured), appSecret) {
		t.Errorf("the app's login is in what the model reads: %s %s", content, structured)
	}
	var offer OfferResult
	_ = json.Unmarshal(structured, &offer)
	if offer.Offer == nil || !slices.Contains(offer.Offer.Reached, ReachedApp) {
		t.Errorf("offer.reached: %s", structured)
	}

	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: AppURI})
	if err != nil || len(rr.Contents) != 1 {
		t.Fatalf("resources/read: %v %+v", err, rr)
	}
	c := rr.Contents[0]
	b, _ := json.Marshal(c.Meta)
	if c.MIMEType != AppMIMEType || !strings.Contains(string(b), `"connectDomains":["ws://127.0.0.1:4567","http://127.0.0.1:4567"]`) {
		t.Errorf("resource %s with _meta %s", c.MIMEType, b)
	}
	if strings.Contains(c.Text, appSecret) || !strings.Contains(c.Text, "Take control") {
		t.Error("the app's HTML holds a secret, or is not the app")
	}

	plain := connectApp(false)
	res, err = plain.CallTool(ctx, &mcp.CallToolParams{Name: spec.ToolRequestUserControl, Arguments: map[string]any{"reason": "pay yourself"}})
	if err != nil || res.IsError {
		t.Fatalf("offer: %v %+v", err, res)
	}
	all, _ := json.Marshal(res)
	if res.Meta[AppMetaKey] != nil || strings.Contains(string(all), appSecret) || strings.Contains(string(all), `"app"`) {
		t.Errorf("a client without the MCP Apps extension got the app's login: %s", all)
	}
}

// TestToolsListSizeWithApp: with the MCP App declared (a server of
// per-session runtimes), tools/list still stays within 12 KB.
func TestToolsListSizeWithApp(t *testing.T) {
	rts := newFakeRuntimes()
	srv := NewServer(func(ctx context.Context, id string) (Runtime, error) { return rts.open(ctx, id) }, nil)
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	cs := connect(t, srv.MCP())
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	// 10 KB before the two WebMCP tools (issue 32), about 600 bytes each:
	// the same bound as TestToolsListSize.
	if len(b) > 12<<10 || !strings.Contains(string(b), AppURI) {
		t.Errorf("tools/list with the app is %d bytes (want at most 12 KB, with %s)", len(b), AppURI)
	}
}
