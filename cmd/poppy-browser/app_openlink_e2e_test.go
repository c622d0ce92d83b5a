package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/mcpserver"
	"github.com/poppy-browser/poppy-browser/presence/presencetest"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/supervisor"
)

// TestMCPAppTakeOpensTheLiveView is the MCP App's Take control as it runs
// by default (no --insecure-take-by-link): the app's own view has no proof
// of presence (a passkey ceremony cannot run in the host's sandboxed
// frame), so its Take control asks the host to open the offer's link
// top-level (ui/open-link) and takes nothing itself. The User opens that
// link in their browser, where their paired passkey (Chromium's virtual
// authenticator) answers the ceremony and the turn is theirs; the app's
// view then shows the turn as held in another window, and, once the User
// hands back there with a message, the turn as over. The agent gets the
// User's message.
func TestMCPAppTakeOpensTheLiveView(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	d := startDemoWith(t, ctx, func(o *supervisor.Options) { o.Live.InsecureTakeByLink = false })
	srv := mcpserver.NewServer(func(context.Context, string) (mcpserver.Runtime, error) {
		return sessionRuntime{d.sv.Session()}, nil
	}, nil)
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(mcpserver.AppExtension, map[string]any{"mimeTypes": []string{mcpserver.AppMIMEType}})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "app-host", Version: "1"}, &mcp.ClientOptions{Capabilities: caps}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	hostSrv := httptest.NewServer(http.FileServerFS(mustSub(t, appHost, "testdata/apphost")))
	t.Cleanup(hostSrv.Close)
	u := userChromium(t)

	// The User paired this browser's passkey earlier, from the pairing
	// link of their terminal.
	top := u.NewPage(t)
	if err := browsertest.SetViewport(ctx, top, 1280, 800); err != nil {
		t.Fatal(err)
	}
	pairing, err := d.sv.PairingLink()
	if err != nil {
		t.Fatal(err)
	}
	dev, err := presencetest.Pair(ctx, top, pairing.URL)
	if err != nil {
		t.Fatal(err)
	}

	// The chat: the host renders the app, and hands it the offer's result.
	p := u.NewPage(t)
	if err := browsertest.SetViewport(ctx, p, 1280, 800); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Navigate(ctx, hostSrv.URL+"/host.html"); err != nil {
		t.Fatal(err)
	}
	host := p.MainFrame()
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.AppURI})
	if err != nil || len(rr.Contents) != 1 {
		t.Fatalf("resources/read: %v %+v", err, rr)
	}
	var meta struct {
		UI struct {
			CSP struct {
				ConnectDomains []string `json:"connectDomains"`
			} `json:"csp"`
		} `json:"ui"`
	}
	b, _ := json.Marshal(rr.Contents[0].Meta)
	if err := json.Unmarshal(b, &meta); err != nil || len(meta.UI.CSP.ConnectDomains) == 0 {
		t.Fatalf("the resource's CSP names no live view: %s", b)
	}
	csp := "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src " +
		strings.Join(meta.UI.CSP.ConnectDomains, " ")
	if err := host.Call(ctx, "", `function(html, csp) { render(html, csp) }`, nil, rr.Contents[0].Text, csp); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: spec.ToolRequestUserControl,
		Arguments: map[string]any{"reason": "Check in yourself: the airline asks for your passport"}})
	if err != nil || res.IsError || res.Meta[mcpserver.AppMetaKey] == nil {
		t.Fatalf("offer: %v %+v", err, res)
	}
	raw, _ := json.Marshal(res)
	var result any
	if err := json.Unmarshal(raw, &result); err != nil {
		t.Fatal(err)
	}
	if err := host.Call(ctx, "", `function(result) { deliver(result) }`, nil, result); err != nil {
		t.Fatal(err)
	}
	app := func() (browser.Frame, bool) {
		var found []browser.Frame
		for _, f := range p.Frames() {
			if f.ParentID != "" {
				found = append(found, f)
			}
		}
		if len(found) != 1 || found[0].URL != "about:srcdoc" {
			return browser.Frame{}, false
		}
		return found[0], true
	}
	banner := func() string {
		f, ok := app()
		if !ok {
			return ""
		}
		v, _ := frameText(ctx, f, "#banner")
		return v
	}
	waitShown(t, ctx, p, app, "#take")

	// Take control in the app: the host is asked to open the offer's
	// link; nothing is taken, and the app shows no page.
	var links []string
	waitUntil(t, ctx, "the app asks the host to open the live view (ui/open-link)", func() bool {
		if f, ok := app(); ok {
			pressIn(ctx, t, p, f, "#take", false)
		}
		wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		for wctx.Err() == nil {
			var got string
			if host.Call(ctx, "", `function() { return JSON.stringify(host.links) }`, &got) == nil &&
				json.Unmarshal([]byte(got), &links) == nil && len(links) > 0 {
				return true
			}
			select {
			case <-wctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
		return false
	})
	if !strings.Contains(links[0], "/live/link/") || !strings.HasPrefix(links[0], "http://localhost:") {
		t.Fatalf("ui/open-link asked for %q, want the offer's link on the localhost live view", links[0])
	}
	if h := d.sv.Control().Holder(); h != spec.ControllerAgent {
		t.Fatalf("the app's Take control took control without a proof of presence: %s", h)
	}
	waitUntil(t, ctx, "the app says where to confirm", func() bool { return strings.Contains(banner(), "passkey") })
	if f, ok := app(); ok {
		var src string
		if err := f.Call(ctx, browser.UtilityWorld, `function() { return document.querySelector("#frame").getAttribute("src") || "" }`, &src); err == nil && src != "" {
			t.Errorf("the app shows a picture of the page before any proof: %.40s", src)
		}
	}

	// The host opens the link top-level, in the User's browser: the
	// User's click on the link page, the passkey's ceremony, the take.
	if _, err := top.Navigate(ctx, links[0]); err != nil {
		t.Fatal(err)
	}
	topFrame := func() (browser.Frame, bool) { return top.MainFrame(), true }
	waitShown(t, ctx, top, topFrame, "#go")
	pressIn(ctx, t, top, top.MainFrame(), "#go", false)
	waitUntil(t, ctx, "the User holds control", func() bool { return d.sv.Control().Holder() == spec.ControllerUser })
	takes := auditTakes(t, d.audit)
	if len(takes) != 1 || takes[0].Proof == nil || takes[0].Proof.Kind != "passkey" || takes[0].Proof.Credential != dev.ID || !takes[0].Proof.UserVerified {
		t.Fatalf("takes in the audit log: %+v, want one, proved by the paired passkey %s with user verification", takes, dev.ID)
	}

	// The app's view shows the turn, held in the other window.
	waitUntil(t, ctx, "the app shows the User's turn", func() bool { return strings.Contains(banner(), "You have control in another window") })

	// The User hands back in the live view, with a message.
	waitShown(t, ctx, top, topFrame, "#more")
	pressIn(ctx, t, top, top.MainFrame(), "#more", false)
	waitShown(t, ctx, top, topFrame, "#note")
	pressIn(ctx, t, top, top.MainFrame(), "#note", false)
	const note = "Checked in through the app's link"
	if err := top.InsertText(ctx, note); err != nil {
		t.Fatal(err)
	}
	pressIn(ctx, t, top, top.MainFrame(), "#hand_back", false)
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: spec.ToolWaitForControl, Arguments: map[string]any{"timeout_seconds": 30}})
	if err != nil {
		t.Fatal(err)
	}
	var back mcpserver.ControlStatus
	sb, _ := json.Marshal(r.StructuredContent)
	_ = json.Unmarshal(sb, &back)
	if back.Controller != spec.ControllerAgent || back.UserMessage != note {
		t.Fatalf("after the hand back in the live view: %s", sb)
	}
	waitUntil(t, ctx, "the app shows the end of the turn", func() bool { return strings.Contains(banner(), "turn is over") })
}

// auditTakes is the take lines of the audit log at path.
func auditTakes(t *testing.T, path string) []audit.Entry {
	t.Helper()
	entries, _ := readAuditFile(t, path)
	var takes []audit.Entry
	for _, e := range entries {
		if e.Event == audit.EventControl && e.How == audit.HowTake {
			takes = append(takes, e)
		}
	}
	return takes
}
