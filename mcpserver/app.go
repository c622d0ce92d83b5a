package mcpserver

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP App of the User's turn (io.modelcontextprotocol/ui): the offer's
// tool declares it (_meta.ui.resourceUri), a host that renders MCP Apps
// shows it in the conversation, and it shows the live view there: the
// offer with Take control and Decline, the page (full screen while the
// User holds control), and the hand back with the User's message, sent
// into the conversation (ui/message).
const (
	// AppURI is the app's resource.
	AppURI = "ui://poppy-browser/live"
	// AppMIMEType is an MCP App's HTML.
	AppMIMEType = "text/html;profile=mcp-app"
	// AppExtension is the extension a client declares to get the app's
	// login.
	AppExtension = "io.modelcontextprotocol/ui"
	// AppMetaKey is the key, in a tool result's _meta, of the app's login
	// to the live view ({ws, viewer, offer, expires}): UI-only data the
	// host gives the app and never the model.
	AppMetaKey = "poppy-browser/live"
)

//go:generate go test -run ^TestExtAppsScript$ . -update

var (
	//go:embed app/app.html
	appPage string
	//go:embed app/app.js
	appJS string
	// extAppsScript is @modelcontextprotocol/ext-apps's browser build
	// (app/ext-apps/app-with-deps.js: its version in package.json, its
	// licence, its hash) as a script rather than a module: written once,
	// when it is vendored, by go generate (TestExtAppsScript), with its
	// final export clause turned into the object ExtApps (App,
	// PostMessageTransport) that app.js uses. Served as written.
	//go:embed app/ext-apps/script.gen.js
	extAppsScript string
)

// appHTML is the app's one HTML file: the SDK's script and the app's
// inline in one module script (a host loads nothing else). It holds no
// secret.
var appHTML = sync.OnceValue(func() string {
	return strings.Replace(appPage, "{{SCRIPT}}", extAppsScript+"\n(() => {\n"+appJS+"\n})();\n", 1)
})

// appToolMeta is the _meta of the control tools: their MCP App.
func appToolMeta() mcp.Meta {
	return mcp.Meta{"ui": map[string]any{"resourceUri": AppURI}}
}

// The optional parts of a [Runtime] the app needs (supervisor.Session).
type (
	// appLoginer mints the app's login for the open offer id.
	appLoginer interface {
		AppLogin(id string) (secret, ws, origin string, expires time.Time, err error)
	}
	// liveOriginer names the live view's origin, for the app's CSP.
	liveOriginer interface{ LiveOrigin() string }
)

// clientWantsApp reports whether the client of req declared the MCP Apps
// extension.
func clientWantsApp(req *mcp.CallToolRequest) bool {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Extensions == nil {
		return false
	}
	_, ok := caps.Extensions[AppExtension]
	return ok
}

// appLogin is the _meta value of the app's login: UI-only data. Link is
// the offer's control link, which the app opens top-level (ui/open-link)
// for Take control: the app's frame cannot prove the User's presence (a
// passkey ceremony runs on the live view's own origin), and neither the
// login nor the link takes anything without that proof.
type appLogin struct {
	WS      string    `json:"ws"`
	Viewer  string    `json:"viewer"`
	Offer   string    `json:"offer"`
	Expires time.Time `json:"expires"`
	Link    string    `json:"link,omitempty"`
}

// appMeta mints the app's login for offer when the client declared the
// MCP Apps extension and the runtime has a live view; nil otherwise.
func (s *Server) appMeta(req *mcp.CallToolRequest, offer string) mcp.Meta {
	rt := s.runtimeOf(req.Session)
	al, ok := rt.(appLoginer)
	if !ok || !clientWantsApp(req) {
		return nil
	}
	secret, ws, _, expires, err := al.AppLogin(offer)
	if err != nil {
		s.opts.Logger.Warn("no MCP App login for the offer", "offer", offer, "err", err)
		return nil
	}
	login := appLogin{WS: ws, Viewer: secret, Offer: offer, Expires: expires}
	if lk, ok := rt.(interface {
		OfferLinkURL(id string) (string, time.Time, error)
	}); ok {
		if link, _, err := lk.OfferLinkURL(offer); err == nil {
			login.Link = link
		}
	}
	return mcp.Meta{AppMetaKey: login}
}

// addApp adds the app's resource. Its CSP names the calling session's
// live view (its websocket and pages), so the host lets the app reach it.
func (s *Server) addApp() {
	s.mcp.AddResource(&mcp.Resource{URI: AppURI, Name: "live-view", Title: "The User's turn: the live view",
		Description: "The live view of the agent's browser, for the User: the offer of control, the page, hand back.",
		MIMEType:    AppMIMEType},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			csp := map[string]any{"connectDomains": []string{}, "resourceDomains": []string{}}
			if origin := s.liveOrigin(ctx, req.Session); origin != "" {
				csp["connectDomains"] = []string{"ws" + strings.TrimPrefix(origin, "http"), origin}
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
				URI: AppURI, MIMEType: AppMIMEType, Text: appHTML(),
				Meta: mcp.Meta{"ui": map[string]any{"csp": csp, "prefersBorder": true}},
			}}}, nil
		})
}

// liveOrigin is the live view's origin of the session's runtime, waiting
// a moment for a runtime that is starting; "" without one.
func (s *Server) liveOrigin(ctx context.Context, ss *mcp.ServerSession) string {
	e := s.reg.lookup(ss)
	if e == nil {
		return ""
	}
	if e.started.Load() {
		t := time.NewTimer(5 * time.Second)
		defer t.Stop()
		select {
		case <-e.ready:
		case <-ctx.Done():
		case <-t.C:
		}
	}
	if lo, ok := s.runtimeOf(ss).(liveOriginer); ok {
		return lo.LiveOrigin()
	}
	return ""
}

// resultWithMeta is v as a tool result (structured and text content) with
// meta, UI-only data: the app reads it, the model does not.
func resultWithMeta(v any, meta mcp.Meta) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	text, ok := textOf(v)
	if !ok {
		text = string(b)
	}
	return &mcp.CallToolResult{Meta: meta, StructuredContent: json.RawMessage(b),
		Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
}
