package main

import (
	"context"
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/mcpserver"
	"github.com/poppy-browser/poppy-browser/spec"
)

//go:embed testdata/apphost
var appHost embed.FS

// TestMCPAppCarriesTheTurn: the MCP App renders in a host page in real
// Chromium (a sandboxed iframe under the CSP the resource declares), gets
// the offer's tool result, and carries a whole turn: the User clicks Take
// control in the app (full screen), the page shows, they hand back with a
// message that goes into the conversation (ui/message) and reaches the
// agent; at desktop and phone size.
func TestMCPAppCarriesTheTurn(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	d := startDemo(t, ctx)
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
	// The User's Chromium, with site isolation as the runtime's: the
	// sandboxed frame runs in a process of its own, as in a real host,
	// and the test reaches into it through package browser.
	u := userChromium(t)

	for _, size := range []struct {
		name string
		w, h int
		// mobile is a phone: the host's viewport meta applies, the
		// screen is a touch screen and the User taps.
		mobile bool
	}{{"desktop", 1280, 800, false}, {"phone", 390, 844, true}} {
		t.Run(size.name, func(t *testing.T) {
			p := u.NewPage(t)
			if size.mobile {
				if err := p.Context().EmulateDevice(ctx, &browser.Device{Width: size.w, Height: size.h, Scale: 1, Mobile: true, Touch: true}); err != nil {
					t.Fatal(err)
				}
			} else if err := browsertest.SetViewport(ctx, p, size.w, size.h); err != nil {
				t.Fatal(err)
			}
			if _, err := p.Navigate(ctx, hostSrv.URL+"/host.html"); err != nil {
				t.Fatal(err)
			}
			host := p.MainFrame()
			// The host reads the resource and renders it with its CSP.
			rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.AppURI})
			if err != nil || len(rr.Contents) != 1 || rr.Contents[0].MIMEType != mcpserver.AppMIMEType {
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
				Arguments: map[string]any{"reason": "Check in yourself (" + size.name + ")"}})
			if err != nil || res.IsError || res.Meta[mcpserver.AppMetaKey] == nil {
				t.Fatalf("offer: %v %+v", err, res)
			}
			raw, _ := json.Marshal(res)
			var result any // the tool result as the host got it over the wire
			if err := json.Unmarshal(raw, &result); err != nil {
				t.Fatal(err)
			}
			if err := host.Call(ctx, "", `function(result) { deliver(result) }`, nil, result); err != nil {
				t.Fatal(err)
			}
			// The app is the host page's one frame, its srcdoc document.
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
			appText := func(id string) string {
				t.Helper()
				f, ok := app()
				if !ok {
					t.Fatalf("reading #%s: the app's frame is gone", id)
				}
				v, err := frameText(ctx, f, "#"+id)
				if err != nil {
					t.Fatalf("reading #%s in the app: %v", id, err)
				}
				return v
			}
			press := func(sel string) {
				t.Helper()
				f, ok := app()
				if !ok {
					t.Fatalf("pressing %s: the app's frame is gone", sel)
				}
				pressIn(ctx, t, p, f, sel, size.mobile)
			}
			waitShown(t, ctx, p, app, "#take")
			if got := appText("reason"); !strings.Contains(got, size.name) {
				t.Errorf("the app shows the reason %q", got)
			}
			if h := d.sv.Control().Holder(); h != spec.ControllerAgent {
				t.Fatalf("showing the app took control: %s", h)
			}
			// The User presses Take control, and presses again while it is
			// still there and nothing happened (a press before the app's
			// live view connection opened is lost, as for a person).
			holds := func() bool { return d.sv.Control().Holder() == spec.ControllerUser }
			for !holds() {
				f, ok := app()
				var shown bool
				if ok && f.Call(ctx, browser.UtilityWorld, `function() {
					const el = document.querySelector("#take");
					return !!el && el.getClientRects().length > 0;
				}`, &shown) == nil && shown {
					press("#take")
				}
				wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				for !holds() && wctx.Err() == nil {
					select {
					case <-wctx.Done():
					case <-time.After(25 * time.Millisecond):
					}
				}
				cancel()
				if ctx.Err() != nil {
					t.Fatal("timed out waiting until the User holds control")
				}
			}
			waitShown(t, ctx, p, app, "#hand_back")
			// The page shows while the User holds control, full screen.
			waitUntil(t, ctx, "the app shows the page", func() bool {
				f, ok := app()
				var src string
				return ok && f.Call(ctx, browser.UtilityWorld, `function() { return document.querySelector("#frame").getAttribute("src") || "" }`, &src) == nil &&
					strings.HasPrefix(src, "data:image/jpeg;base64,")
			})
			var mode string
			if err := host.Call(ctx, "", `function() { return document.body.dataset.mode || "" }`, &mode); err != nil || mode != "fullscreen" {
				t.Errorf("display mode %q while the User holds control (%v)", mode, err)
			}
			note := "Checked in on the " + size.name
			press("#note")
			if err := p.InsertText(ctx, note); err != nil {
				t.Fatal(err)
			}
			press("#hand_back")
			var back mcpserver.ControlStatus
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: spec.ToolWaitForControl, Arguments: map[string]any{"timeout_seconds": 30}})
			if err != nil {
				t.Fatal(err)
			}
			sb, _ := json.Marshal(r.StructuredContent)
			_ = json.Unmarshal(sb, &back)
			if back.Controller != spec.ControllerAgent || back.UserMessage != note {
				t.Fatalf("after the hand back in the app: %s", sb)
			}
			waitUntil(t, ctx, "the hand back's message in the conversation", func() bool {
				var got string
				err := host.Call(ctx, "", `function() { return JSON.stringify(host.messages) }`, &got)
				return err == nil && strings.Contains(got, note) && strings.Contains(got, `"role":"user"`)
			})
			waitUntil(t, ctx, "the app shows the end of the turn", func() bool {
				f, ok := app()
				if !ok {
					return false
				}
				v, err := frameText(ctx, f, "#banner")
				return err == nil && strings.Contains(v, "turn is over")
			})
		})
	}
}

func mustSub(t *testing.T, fsys fs.FS, dir string) fs.FS {
	t.Helper()
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}
