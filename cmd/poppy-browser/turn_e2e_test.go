package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/mcpserver"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
	"github.com/poppy-browser/poppy-browser/ui"
)

const userTurnURL = "https://airline.test/fixtures/user-turn"

// everyAction is one call of every action tool, with arguments that would
// change the page if they ran.
func everyAction(ref string) []struct {
	tool string
	args map[string]any
} {
	return []struct {
		tool string
		args map[string]any
	}{
		{spec.ToolNavigate, map[string]any{"url": testsite.BookingURL()}},
		{spec.ToolBack, nil},
		{spec.ToolSnapshot, nil},
		{spec.ToolClick, map[string]any{"ref": ref}},
		{spec.ToolType, map[string]any{"ref": ref, "text": "X7654321", "submit": true}},
		{spec.ToolSelect, map[string]any{"ref": ref, "values": []string{"aisle"}}},
		{spec.ToolPressKey, map[string]any{"key": "Enter", "ref": ref}},
		{spec.ToolScroll, map[string]any{"direction": "down"}},
		{spec.ToolWait, map[string]any{"seconds": 1}},
	}
}

// TestOnlyTheUserEndsTheirControl checks browser-control v1 section 5 in
// real Chromium: "Only the User ends their control, by handing it back or
// cancelling. A timeout, a change to the page's marks, or anything the
// Company sends MUST NOT end it", "While the User holds control: The
// Personal Agent's software MUST NOT carry out browser actions from its
// model. The website's own scripts keep running", and section 6: "\"user\"
// while the User holds control", in frames created during the User's turn.
// The page's scripts change its marks, post messages and dispatch events;
// a frame appears; the User navigates on the same host, to another Company
// host and off-site; the MCP client disconnects and reconnects; the agent
// calls every tool. The User keeps control throughout, and hands it back
// with the terminal UI's key while a scripted User watches the live view.
func TestOnlyTheUserEndsTheirControl(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	d := startDemo(t, ctx)
	nctx, stopNotify := context.WithCancel(ctx)
	notified := make(chan struct{})
	go func() { defer close(notified); mcpserver.NotifyControl(nctx, d.srv, d.sv.Control()) }()
	t.Cleanup(func() { stopNotify(); <-notified })

	if r := d.call(ctx, spec.ToolNavigate, map[string]any{"url": userTurnURL}); r.Outcome != "done" {
		t.Fatalf("navigate: %+v", r)
	}
	snap := d.snapshot(ctx)
	passport := ref(t, snap, "textbox", "Passport number")
	if r := d.call(ctx, spec.ToolRequestUserControl, map[string]any{"reason": "The airline asks you to check in yourself", "ref": passport.Ref}); r.Outcome != "done" {
		t.Fatalf("request: %+v", r)
	}
	u := connectUser(t, ctx, d.sv.LiveURL())
	u.controller(ctx, "agent")
	u.send(map[string]any{"type": "take"})
	u.controller(ctx, "user")
	holds := func(when string) {
		t.Helper()
		if st := d.call(ctx, spec.ToolControlStatus, nil); st.Controller != "user" {
			t.Fatalf("%s: controller %q, want user", when, st.Controller)
		}
		if h := d.sv.Control().Holder(); h != spec.ControllerUser {
			t.Fatalf("%s: holder %q", when, h)
		}
	}

	t.Run("page scripts change marks, post messages, dispatch events", func(t *testing.T) {
		// "A change to the page's marks, or anything the Company sends MUST NOT end it."
		if _, err := d.site.WaitFrameReport(ctx, func(f testsite.FrameReport) bool {
			return f.Event == "churned" && f.Controller == "user"
		}); err != nil {
			t.Fatalf("the page's scripts never ran during the User's turn: %v", err)
		}
		holds("after the page's scripts")
	})

	t.Run("a frame created during the User's turn reads user", func(t *testing.T) {
		// Section 6: "user" while the User holds control, in every Company frame.
		u.clickOn(ctx, "#add-frame")
		rep, err := d.site.WaitFrameReport(ctx, func(f testsite.FrameReport) bool { return f.Event == "late-frame" })
		if err != nil {
			t.Fatal(err)
		}
		if rep.Host != testsite.PayHost || rep.Controller != "user" {
			t.Fatalf("the new frame reported %+v, want pay.airline.test reading user", rep)
		}
	})

	t.Run("the agent calls every tool", func(t *testing.T) {
		// "MUST NOT carry out browser actions from its model": all refused, nothing changes.
		noHash := func(u string) string { u, _, _ = strings.Cut(u, "#"); return u }
		before := noHash(d.sv.Page().URL())
		for _, c := range everyAction(passport.Ref) {
			if r := d.call(ctx, c.tool, c.args); r.Outcome != "denied" || r.Reason != "user_has_control" {
				t.Errorf("%s while the User holds control: %+v", c.tool, r)
			}
		}
		// The request says so truthfully: no new offer while the User holds control.
		if r := d.call(ctx, spec.ToolRequestUserControl, map[string]any{"reason": "again"}); r.Outcome != "denied" || r.Reason != "user_has_control" {
			t.Errorf("request while the User holds control: %+v", r)
		}
		start := time.Now()
		if st := d.call(ctx, spec.ToolWaitForControl, map[string]any{"timeout_seconds": 0.5}); st.Controller != "user" {
			t.Errorf("wait_for_control: %+v", st)
		}
		if time.Since(start) < 500*time.Millisecond {
			t.Error("wait_for_control returned before its timeout while the User holds control")
		}
		if got := noHash(d.sv.Page().URL()); got != before {
			t.Errorf("the page moved from %s to %s", before, got)
		}
		if n := len(d.site.CheckIns()); n != 0 {
			t.Errorf("the airline recorded %d check-ins", n)
		}
		holds("after every tool")
	})

	parent := t
	t.Run("the MCP client disconnects and reconnects", func(t *testing.T) {
		if err := d.mcp.Close(); err != nil {
			t.Fatal(err)
		}
		d.mcp = connectClient(parent, ctx, d.srv, nil)
		holds("after the client reconnected")
	})

	t.Run("the User navigates: same host, another Company host, off-site", func(t *testing.T) {
		for _, c := range []struct{ link, host, url string }{
			{"#same", testsite.CompanyDomain, "page=2"},
			{"#company", "www.airline.test", "www.airline.test"},
		} {
			seen := len(d.site.FrameReports()) // the new page's reports come after these
			u.clickOn(ctx, c.link)
			waitUntil(t, ctx, "the page is "+c.url, func() bool { return strings.Contains(d.sv.Page().URL(), c.url) })
			if err := d.site.WaitFor(ctx, func() bool {
				return slices.ContainsFunc(d.site.FrameReports()[seen:], func(f testsite.FrameReport) bool {
					return f.Host == c.host && f.Event == "churned" && f.Controller == "user"
				})
			}); err != nil {
				t.Fatalf("after the User went to %s no page read user: %v", c.url, err)
			}
			holds("after the User went to " + c.url)
		}
		u.clickOn(ctx, "#offsite")
		waitUntil(t, ctx, "the page is off-site", func() bool { return strings.HasPrefix(d.sv.Page().URL(), "https://partner.test/") })
		holds("after the User went off-site")
	})

	// The User hands back with the terminal UI; the live view sees it.
	tui, err := ui.NewTUI(d.sv.TUIOptions())
	if err != nil {
		t.Fatal(err)
	}
	pressKey(t, tui, "h")
	u.controller(ctx, "agent")

	t.Run("after hand back: new epoch, stale refs, must_reobserve until the agent sees the page", func(t *testing.T) {
		// "When the User hands control back, the Personal Agent looks at the page again."
		st := d.call(ctx, spec.ToolControlStatus, nil)
		if st.Controller != "agent" || !st.MustReobserve {
			t.Fatalf("status after hand back: %+v", st)
		}
		if r := d.call(ctx, spec.ToolClick, map[string]any{"ref": passport.Ref}); r.Outcome != "denied" || r.Reason != "stale_ref" {
			t.Errorf("a ref of the User's turn after hand back: %+v", r)
		}
		if st := d.call(ctx, spec.ToolControlStatus, nil); !st.MustReobserve {
			t.Errorf("must_reobserve cleared by a refused action: %+v", st)
		}
		// A navigation answers with the page it arrives at (one round
		// trip per page change): that is the agent looking again.
		if r := d.call(ctx, spec.ToolNavigate, map[string]any{"url": userTurnURL}); r.Outcome != "done" || r.Page.Epoch <= snap.Page.Epoch {
			t.Errorf("navigate after hand back: %+v (epoch before %d)", r, snap.Page.Epoch)
		}
		if st := d.call(ctx, spec.ToolControlStatus, nil); st.MustReobserve {
			t.Errorf("must_reobserve still set after a navigation brought the page back: %+v", st)
		}
		d.snapshot(ctx)
		if st := d.call(ctx, spec.ToolControlStatus, nil); st.MustReobserve {
			t.Errorf("must_reobserve still set after a snapshot: %+v", st)
		}
	})

	t.Run("after cancel the agent is told cancelled", func(t *testing.T) {
		notes := make(chan mcpserver.ControlNotice, 16)
		cs := connectClient(t, ctx, d.srv, &mcp.ClientOptions{
			LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
				b, _ := json.Marshal(req.Params.Data)
				var n mcpserver.ControlNotice
				if json.Unmarshal(b, &n) == nil {
					notes <- n
				}
			},
		})
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "notice"}); err != nil {
			t.Fatal(err)
		}
		pressKey(t, tui, "t") // the terminal UI's take; the live view sees it
		u.controller(ctx, "user")
		u.send(map[string]any{"type": "cancel"})
		u.controller(ctx, "agent")
		for {
			select {
			case n := <-notes:
				if n.How != "cancelled" {
					continue
				}
				if n.Controller != "agent" || !strings.Contains(n.Message, "cancelled") {
					t.Errorf("cancel notice: %+v", n)
				}
			case <-ctx.Done():
				t.Fatal("no MCP notification of the cancel")
			}
			break
		}
		var st struct {
			LastReturn struct{ How string } `json:"last_return"`
		}
		res, err := d.mcp.CallTool(ctx, &mcp.CallToolParams{Name: spec.ToolControlStatus})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		if json.Unmarshal(b, &st); st.LastReturn.How != "cancelled" {
			t.Errorf("status after cancel: %s", b)
		}
	})
}

// TestWaitForControlReturnsWhenBack: section 5, "MUST NOT keep its own
// requests ... waiting until the User acts": browser_wait_for_control
// returns as soon as the User hands back, long before its timeout.
func TestWaitForControlReturnsWhenBack(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	d := startDemo(t, ctx)
	if err := d.sv.Control().User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	got := make(chan result, 1)
	go func() { got <- d.call(ctx, spec.ToolWaitForControl, map[string]any{"timeout_seconds": 60}) }()
	waitUntil(t, ctx, "the agent is waiting", func() bool {
		return d.call(ctx, spec.ToolControlStatus, nil).Controller == "user"
	})
	start := time.Now()
	if err := d.sv.Control().User().HandBack(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-got:
		if r.Controller != "agent" || !r.MustReobserve {
			t.Errorf("wait_for_control: %+v", r)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("wait_for_control returned %v after the hand back", d)
		}
	case <-ctx.Done():
		t.Fatal("wait_for_control did not return when control came back")
	}
}

func connectClient(t *testing.T, ctx context.Context, srv *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-model", Version: "2"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// pressKey presses a key in the terminal UI and runs the control operation
// it starts, as the bubbletea program would.
func pressKey(t *testing.T, tui *ui.TUI, key string) {
	t.Helper()
	_, cmd := tui.Update(tea.KeyPressMsg{Code: rune(key[0]), Text: key})
	if cmd == nil {
		t.Fatalf("key %q started nothing", key)
	}
	tui.Update(cmd())
}

// TestWindowInputOnlyForTheUser: with --headful, "the User's own input in
// the Chromium window reaches the page only while the User holds control".
// Headless here, with the same guard: input from outside the runtime's
// dispatch (a raw CDP mouse event stands in for the window's) is dropped
// while the agent holds control and arrives while the User does; the
// agent's own clicks still work.
func TestWindowInputOnlyForTheUser(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	d := startDemoWith(t, ctx, func(o *supervisor.Options) { o.Browser.GuardWindow = true })
	if r := d.call(ctx, spec.ToolNavigate, map[string]any{"url": "https://airline.test/fixtures/check-in-unmarked"}); r.Outcome != "done" {
		t.Fatalf("navigate: %+v", r)
	}
	snap := d.snapshot(ctx)
	_ = ref(t, snap, "combobox", "Seat")
	u := connectUser(t, ctx, d.sv.LiveURL())
	u.controller(ctx, "agent")
	// Where is the seat field? Ask as the User would, once in control.
	u.send(map[string]any{"type": "take"})
	u.controller(ctx, "user")
	u.send(map[string]any{"type": "locate", "selector": "select"})
	box := u.await(ctx, "locate", nil)
	x, y := box["x"].(float64)+5, box["y"].(float64)+5
	u.send(map[string]any{"type": "hand_back"})
	u.controller(ctx, "agent")

	window := func() {
		t.Helper()
		if err := browsertest.WindowClick(ctx, d.sv.Page(), x, y); err != nil {
			t.Fatal(err)
		}
	}
	focused := func() bool {
		var tag string
		if err := d.sv.Page().MainFrame().Call(ctx, "", "() => document.activeElement ? document.activeElement.tagName : ''", &tag); err != nil {
			t.Fatal(err)
		}
		return tag == "SELECT"
	}
	window()
	if focused() {
		t.Fatal("the window's click reached the page while the agent holds control")
	}
	// The agent's own input still works under the guard.
	snap = d.snapshot(ctx)
	if r := d.call(ctx, spec.ToolPressKey, map[string]any{"key": "Tab", "ref": ref(t, snap, "combobox", "Seat").Ref}); r.Outcome != "done" {
		t.Fatalf("the agent's key under the guard: %+v", r)
	}
	d.sv.Page().MainFrame().Call(ctx, "", "() => document.activeElement && document.activeElement.blur()", nil)
	if err := d.sv.Control().User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	window()
	if !focused() {
		t.Fatal("the window's click did not reach the page while the User holds control")
	}
}
