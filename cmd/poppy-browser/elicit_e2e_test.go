package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/mcpserver"
	"github.com/poppy-browser/poppy-browser/presence/presencetest"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/supervisor"
)

// sessionRuntime serves the demo's Session to an MCP server as a session
// runtime (with its User channels: links, decline), left open when the MCP
// session ends.
type sessionRuntime struct{ *supervisor.Session }

func (sessionRuntime) Close(context.Context, string) error { return nil }

// elicitClient is an MCP client that declares URL (or only form)
// elicitation, answers each elicitation with action, and records what it
// was sent.
type elicitClient struct {
	cs       *mcp.ClientSession
	mu       sync.Mutex
	asked    []*mcp.ElicitParams
	complete []string
	urls     chan string
}

func connectElicitClient(t *testing.T, ctx context.Context, srv *mcpserver.Server, version string, url bool, action string) *elicitClient {
	t.Helper()
	c := &elicitClient{urls: make(chan string, 4)}
	caps := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	if url {
		caps.Elicitation.URL = &mcp.URLElicitationCapabilities{}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "elicit-test", Version: "v0"}, &mcp.ClientOptions{
		Capabilities: caps,
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			c.mu.Lock()
			c.asked = append(c.asked, req.Params)
			c.mu.Unlock()
			c.urls <- req.Params.URL
			return &mcp.ElicitResult{Action: action}, nil
		},
		ElicitationCompleteHandler: func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
			c.mu.Lock()
			c.complete = append(c.complete, req.Params.ElicitationID)
			c.mu.Unlock()
		},
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	c.cs = cs
	return c
}

func (c *elicitClient) completed() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.complete)
}

func (c *elicitClient) askedCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.asked)
}

// callJSON calls tool and returns its structured result, the raw result
// for checks of what the model reads.
func (c *elicitClient) callJSON(t *testing.T, ctx context.Context, tool string, args map[string]any, v any) string {
	t.Helper()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	raw, _ := json.Marshal(res)
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v in %s", tool, err, raw)
	}
	return string(raw)
}

// userChromium is the User's own browser (another Chromium than the
// agent's, with args added to its flags), launched when the test opens
// its first page and closed at t's cleanup, its temporary profile
// checked gone. Its pages fail the test on an uncaught exception.
func userChromium(t *testing.T, args ...string) *browsertest.Browser {
	t.Helper()
	u := browsertest.New(&browsertest.Options{Args: args})
	t.Cleanup(func() {
		if err := u.Close(); err != nil {
			t.Error(err)
		}
	})
	return u
}

// frameText is the text the User reads in the element sel of frame f
// (its innerText).
func frameText(ctx context.Context, f browser.Frame, sel string) (string, error) {
	var s string
	err := f.Call(ctx, browser.UtilityWorld, `function(sel) {
		const el = document.querySelector(sel);
		if (!el) throw new Error("no " + sel);
		return el.innerText;
	}`, &s, sel)
	return s, err
}

// waitShown waits (failing t when ctx ends) until the element sel is shown
// in the frame find returns: in the document, laid out and not hidden.
func waitShown(t *testing.T, ctx context.Context, p *browser.Page, find func() (browser.Frame, bool), sel string) {
	t.Helper()
	waitUntil(t, ctx, sel+" shown on "+p.URL(), func() bool {
		f, ok := find()
		var shown bool
		return ok && f.Call(ctx, browser.UtilityWorld, `function(sel) {
			const el = document.querySelector(sel);
			return !!el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
		}`, &shown, sel) == nil && shown
	})
}

// pressIn clicks the centre of the element sel of p's frame f with real
// input, as the User does, or taps it on a touch screen. The element is
// scrolled into view first, and read once the frame has drawn it; the
// point must hit the element (nothing covers it).
func pressIn(ctx context.Context, t *testing.T, p *browser.Page, f browser.Frame, sel string, touch bool) {
	t.Helper()
	var at struct {
		X, Y float64
		Hit  bool
	}
	if err := f.Call(ctx, browser.UtilityWorld, `function(sel) {
		const el = document.querySelector(sel);
		if (!el) throw new Error("no " + sel);
		el.scrollIntoView({block: "nearest", inline: "nearest"});
		return new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => {
			const r = el.getBoundingClientRect(), x = r.x + r.width / 2, y = r.y + r.height / 2;
			const top = document.elementFromPoint(x, y);
			done({X: x, Y: y, Hit: !!top && (top === el || el.contains(top))});
		})));
	}`, &at, sel); err != nil {
		t.Fatalf("locating %s: %v", sel, err)
	}
	if !at.Hit {
		t.Fatalf("%s is covered at its centre (%v,%v): the User could not press it", sel, at.X, at.Y)
	}
	ox, oy, err := f.Offset(ctx, p)
	if err != nil {
		t.Fatalf("locating the frame of %s: %v", sel, err)
	}
	if touch {
		browsertest.Tap(ctx, t, p, ox+at.X, oy+at.Y)
		return
	}
	if err := p.Click(ctx, ox+at.X, oy+at.Y); err != nil {
		t.Fatalf("clicking %s: %v", sel, err)
	}
}

// TestURLElicitationHandsOverTheTurn: an MCP client that declared URL
// elicitation is sent the offer (the User's control link as url, the
// reason and the Company in message), without the tool call waiting for
// the User; the tool result names the channels and holds no link. Its
// URL, opened in the User's real Chromium, takes the turn after a click
// and the ceremony of the passkey the User paired;
// the User hands back with a message from the live view, and
// notifications/elicitation/complete follows with the same id. Before the
// 2026-07-28 revision the elicitation is a request of its own; from it,
// an input-required result that the client answers by retrying the call,
// with no elicitationId and no complete notification.
func TestURLElicitationHandsOverTheTurn(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			d := startDemoWith(t, ctx, func(o *supervisor.Options) { o.Live.InsecureTakeByLink = false }) // the User pairs, below
			srv := mcpserver.NewServer(func(context.Context, string) (mcpserver.Runtime, error) {
				return sessionRuntime{d.sv.Session()}, nil
			}, nil)
			t.Cleanup(func() { _ = srv.Close(context.Background()) })
			c := connectElicitClient(t, ctx, srv, version, true, "accept")

			var offer mcpserver.OfferResult
			raw := c.callJSON(t, ctx, spec.ToolRequestUserControl, map[string]any{"reason": "Check in yourself: the airline asks for your passport"}, &offer)
			if offer.Outcome != spec.OutcomeDone || offer.Offer == nil || !slices.Contains(offer.Offer.Reached, mcpserver.ReachedElicitation) {
				t.Fatalf("offer: %s", raw)
			}
			var link string
			select {
			case link = <-c.urls:
			case <-ctx.Done():
				t.Fatal("no elicitation reached the client")
			}
			if !strings.Contains(link, "/live/link/") || strings.Contains(raw, link) || strings.Contains(raw, "/live/link/") {
				t.Fatalf("the elicitation's url %q, or the tool result holds a link: %s", link, raw)
			}
			c.mu.Lock()
			asked := *c.asked[0]
			c.mu.Unlock()
			// 2026-07-28 removed elicitationId (and the complete
			// notification): the retry's requestState names the round.
			stateless := version >= "2026-07-28"
			if asked.Mode != "url" || (asked.ElicitationID == "") != stateless || !strings.Contains(asked.Message, "Check in yourself") || !strings.Contains(asked.Message, d.sv.Session().CompanyName()) {
				t.Errorf("elicitation = %+v", asked)
			}
			var st mcpserver.ControlStatus
			waitUntil(t, ctx, "the status shows the accepted elicitation", func() bool {
				c.callJSON(t, ctx, spec.ToolControlStatus, nil, &st)
				return st.Elicitation != nil && st.Elicitation.Action == mcpserver.ElicitAccept
			})
			if st.Controller != spec.ControllerAgent || st.Offer == nil || st.Elicitation.Offer != st.Offer.ID {
				t.Errorf("status after accept: %+v", st)
			}

			// The client opens the URL in the User's browser; a GET spends
			// nothing, the User's click takes the turn.
			u := userChromium(t).NewPage(t)
			if err := browsertest.SetViewport(ctx, u, 1280, 800); err != nil {
				t.Fatal(err)
			}
			// The User paired this browser's passkey (Chromium's virtual
			// authenticator) earlier, from the terminal UI's pairing link:
			// the click takes the turn after the passkey's ceremony.
			pairing, err := d.sv.PairingLink()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := presencetest.Pair(ctx, u, pairing.URL); err != nil {
				t.Fatal(err)
			}
			if _, err := u.Navigate(ctx, link); err != nil {
				t.Fatal(err)
			}
			top := func() (browser.Frame, bool) { return u.MainFrame(), true }
			waitShown(t, ctx, u, top, "#go")
			if h := d.sv.Control().Holder(); h != spec.ControllerAgent {
				t.Fatalf("opening the link took control: %s", h)
			}
			pressIn(ctx, t, u, u.MainFrame(), "#go", false)
			waitUntil(t, ctx, "the User holds control", func() bool { return d.sv.Control().Holder() == spec.ControllerUser })
			if got := c.completed(); len(got) != 0 {
				t.Errorf("complete sent while the User holds control: %v", got)
			}
			// During their turn the live view is one bar: the User opens
			// More to write the agent a message, then hands back.
			waitShown(t, ctx, u, top, "#hand_back")
			waitShown(t, ctx, u, top, "#more")
			pressIn(ctx, t, u, u.MainFrame(), "#more", false)
			waitShown(t, ctx, u, top, "#note")
			pressIn(ctx, t, u, u.MainFrame(), "#note", false)
			const note = "Checked in, seat 14C"
			if err := u.InsertText(ctx, note); err != nil {
				t.Fatal(err)
			}
			pressIn(ctx, t, u, u.MainFrame(), "#hand_back", false)
			var back mcpserver.ControlStatus
			c.callJSON(t, ctx, spec.ToolWaitForControl, map[string]any{"timeout_seconds": 30}, &back)
			if back.Controller != spec.ControllerAgent || back.TimedOut || back.LastReturn == nil || back.UserMessage != note {
				t.Fatalf("wait_for_control after the hand back: %+v", back)
			}
			if stateless {
				// Nothing to wait for: a complete notification would come
				// from the watch that ended the round, which has.
				c.callJSON(t, ctx, spec.ToolControlStatus, nil, &back)
				if got := c.completed(); len(got) != 0 {
					t.Errorf("complete notifications over %s: %v", version, got)
				}
				return
			}
			waitUntil(t, ctx, "notifications/elicitation/complete", func() bool { return len(c.completed()) > 0 })
			if got := c.completed(); len(got) != 1 || got[0] != asked.ElicitationID {
				t.Errorf("complete notifications %v, want one for %s", got, asked.ElicitationID)
			}
		})
	}
}

// TestURLElicitationDeclined: the User declines in their MCP client: the
// offer is declined, browser_wait_for_control returns at once with it,
// and no complete notification follows. A client that declared only form
// elicitation gets no elicitation and no link at all.
func TestURLElicitationDeclined(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	d := startDemo(t, ctx)
	srv := mcpserver.NewServer(func(context.Context, string) (mcpserver.Runtime, error) {
		return sessionRuntime{d.sv.Session()}, nil
	}, nil)
	t.Cleanup(func() { _ = srv.Close(context.Background()) })

	t.Run("decline", func(t *testing.T) {
		c := connectElicitClient(t, ctx, srv, "2025-11-25", true, "decline")
		var offer mcpserver.OfferResult
		c.callJSON(t, ctx, spec.ToolRequestUserControl, map[string]any{"reason": "pay yourself"}, &offer)
		start := time.Now()
		var st mcpserver.ControlStatus
		c.callJSON(t, ctx, spec.ToolWaitForControl, map[string]any{"timeout_seconds": 60}, &st)
		if st.Declined == nil || st.Declined.Offer != offer.Offer.ID || st.TimedOut || st.Offer != nil {
			t.Fatalf("wait_for_control after the decline: %+v", st)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("the wait took %s after a decline", d)
		}
		waitUntil(t, ctx, "the status shows the decline", func() bool {
			c.callJSON(t, ctx, spec.ToolControlStatus, nil, &st)
			return st.Elicitation != nil && st.Elicitation.Action == mcpserver.ElicitDecline
		})
		// A later offer (declined too) ends nothing of the declined
		// one's: the client already knows, no complete is sent.
		c.callJSON(t, ctx, spec.ToolRequestUserControl, map[string]any{"reason": "again"}, &offer)
		<-c.urls
		<-c.urls
		c.callJSON(t, ctx, spec.ToolWaitForControl, map[string]any{"timeout_seconds": 30}, &st)
		if st.Declined == nil || st.Declined.Offer != offer.Offer.ID {
			t.Fatalf("the second offer was not declined: %+v", st)
		}
		if got := c.completed(); len(got) != 0 {
			t.Errorf("complete after a decline: %v", got)
		}
	})

	t.Run("form only", func(t *testing.T) {
		c := connectElicitClient(t, ctx, srv, "2025-11-25", false, "accept")
		var offer mcpserver.OfferResult
		raw := c.callJSON(t, ctx, spec.ToolRequestUserControl, map[string]any{"reason": "pay yourself"}, &offer)
		if offer.Outcome != spec.OutcomeDone || slices.Contains(offer.Offer.Reached, mcpserver.ReachedElicitation) || strings.Contains(raw, "/live/link/") {
			t.Fatalf("offer to a form-only client: %s", raw)
		}
		var st mcpserver.ControlStatus
		c.callJSON(t, ctx, spec.ToolControlStatus, nil, &st)
		if n := c.askedCount(); n != 0 || st.Elicitation != nil {
			t.Errorf("a form-only client was sent %d elicitations (status %+v)", n, st.Elicitation)
		}
	})
}

// TestURLElicitationUnansweredEndsWithTheOffer: a client that never
// answers an offer's URL elicitation does not hold the server's request
// for ever: when a newer offer replaces the first, the first request is
// cancelled (its handler's context ends), and the newer one stays open.
func TestURLElicitationUnansweredEndsWithTheOffer(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel() // before the sessions' cleanups: a handler still waiting returns
	d := startDemo(t, ctx)
	srv := mcpserver.NewServer(func(context.Context, string) (mcpserver.Runtime, error) {
		return sessionRuntime{d.sv.Session()}, nil
	}, nil)
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	type asked struct {
		id    string
		ended <-chan struct{}
	}
	asks := make(chan asked, 4)
	client := mcp.NewClient(&mcp.Implementation{Name: "silent-user", Version: "v0"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(hctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asks <- asked{req.Params.ElicitationID, hctx.Done()}
			select { // the User never answers
			case <-hctx.Done():
				return nil, hctx.Err()
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	offer := func() asked {
		t.Helper()
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: spec.ToolRequestUserControl, Arguments: map[string]any{"reason": "check in yourself"}}); err != nil {
			t.Fatal(err)
		}
		select {
		case a := <-asks:
			return a
		case <-ctx.Done():
			t.Fatal("no elicitation reached the client")
		}
		return asked{}
	}
	first := offer()
	second := offer()
	if first.id == second.id {
		t.Fatalf("the second offer reused elicitation %s", first.id)
	}
	select {
	case <-first.ended:
	case <-ctx.Done():
		t.Fatal("the replaced offer's elicitation request was never cancelled")
	}
	select {
	case <-second.ended:
		t.Fatal("the open offer's elicitation request was cancelled")
	default:
	}
}
