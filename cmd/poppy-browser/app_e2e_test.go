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

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/browser"
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
	path, err := browser.FindChromium()
	if err != nil {
		t.Fatal(err)
	}
	// The sandboxed frame stays in the page's process, so the test can
	// reach into it (a real host puts it on an origin of its own).
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-features", "IsolateSandboxedIframes"))
	actx, cancelA := chromedp.NewExecAllocator(ctx, opts...)
	u, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA() })

	for _, size := range []struct {
		name   string
		w, h   int64
		mobile bool
	}{{"desktop", 1280, 800, false}, {"phone", 390, 844, true}} {
		t.Run(size.name, func(t *testing.T) {
			var vp []chromedp.EmulateViewportOption
			if size.mobile {
				vp = append(vp, chromedp.EmulateMobile)
			}
			if err := chromedp.Do(u, chromedp.EmulateViewport(size.w, size.h, vp...), chromedp.Navigate(hostSrv.URL+"/host.html")); err != nil {
				t.Fatal(err)
			}
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
			if _, err := chromedp.Run(u, chromedp.Evaluate[any]("render("+jsString(rr.Contents[0].Text)+", "+jsString(csp)+")")); err != nil {
				t.Fatal(err)
			}

			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: spec.ToolRequestUserControl,
				Arguments: map[string]any{"reason": "Check in yourself (" + size.name + ")"}})
			if err != nil || res.IsError || res.Meta[mcpserver.AppMetaKey] == nil {
				t.Fatalf("offer: %v %+v", err, res)
			}
			raw, _ := json.Marshal(res)
			if _, err := chromedp.Run(u, chromedp.Evaluate[any]("deliver("+string(raw)+")")); err != nil {
				t.Fatal(err)
			}
			frames, err := chromedp.Run(u, chromedp.Nodes(chromedp.CSS("iframe")))
			if err != nil || len(frames) != 1 {
				t.Fatalf("the app's iframe: %v", err)
			}
			in := chromedp.FromNode(frames[0])
			appText := func(id string) string {
				t.Helper()
				v, err := chromedp.Run(u, chromedp.Text(chromedp.CSS("#"+id), in))
				if err != nil {
					t.Fatalf("reading #%s in the app: %v", id, err)
				}
				return v
			}
			if err := chromedp.Do(u, chromedp.WaitVisible(chromedp.CSS("#take"), in)); err != nil {
				t.Fatal(err)
			}
			if got := appText("reason"); !strings.Contains(got, size.name) {
				t.Errorf("the app shows the reason %q", got)
			}
			if h := d.sv.Control().Holder(); h != spec.ControllerAgent {
				t.Fatalf("showing the app took control: %s", h)
			}
			if err := chromedp.Do(u, chromedp.Click(chromedp.CSS("#take"), in)); err != nil {
				t.Fatal(err)
			}
			waitUntil(t, ctx, "the User holds control", func() bool { return d.sv.Control().Holder() == spec.ControllerUser })
			if err := chromedp.Do(u, chromedp.WaitVisible(chromedp.CSS("#hand_back"), in)); err != nil {
				t.Fatal(err)
			}
			// The page shows while the User holds control, full screen.
			waitUntil(t, ctx, "the app shows the page", func() bool {
				v, err := chromedp.Run(u, chromedp.AttributeValue(chromedp.CSS("#frame"), "src", in))
				return err == nil && strings.HasPrefix(v.Value, "data:image/jpeg;base64,")
			})
			mode, err := chromedp.Run(u, chromedp.Evaluate[string]("document.body.dataset.mode || ''"))
			if err != nil || mode != "fullscreen" {
				t.Errorf("display mode %q while the User holds control (%v)", mode, err)
			}
			note := "Checked in on the " + size.name
			if err := chromedp.Do(u, chromedp.SetValue(chromedp.CSS("#note"), note, in), chromedp.Click(chromedp.CSS("#hand_back"), in)); err != nil {
				t.Fatal(err)
			}
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
				got, err := chromedp.Run(u, chromedp.Evaluate[string]("JSON.stringify(host.messages)"))
				return err == nil && strings.Contains(got, note) && strings.Contains(got, `"role":"user"`)
			})
			waitUntil(t, ctx, "the app shows the end of the turn", func() bool {
				v, err := chromedp.Run(u, chromedp.Text(chromedp.CSS("#banner"), in))
				return err == nil && strings.Contains(v, "turn is over")
			})
		})
	}
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func mustSub(t *testing.T, fsys fs.FS, dir string) fs.FS {
	t.Helper()
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}
