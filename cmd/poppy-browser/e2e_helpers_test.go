package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/mcpserver"
	"github.com/poppy-browser/poppy-browser/presence"
	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
	"github.com/poppy-browser/poppy-browser/testsite/demoscript"
)

// demoTask is the demo's task; startDemoSite serves the demo airline.
const demoTask = demoscript.Task

func startDemoSite() (*testsite.Site, *session.KeySigner, error) { return demoscript.StartSite() }

func TestMain(m *testing.M) {
	flag.Parse()
	// The live view URL file's default is in the User's cache directory:
	// keep the tests' out of the real one.
	cache, err := os.MkdirTemp("", "poppy-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// go build (builtBinary) keeps using the real build cache: an empty
	// one under the temporary XDG_CACHE_HOME rebuilds every dependency.
	if os.Getenv("GOCACHE") == "" {
		if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
			os.Setenv("GOCACHE", strings.TrimSpace(string(out)))
		}
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	if _, err := browser.FindChromium(); err != nil {
		if testing.Short() {
			fmt.Println("skipping end-to-end tests under -short:", err)
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "end-to-end tests need Chromium:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(cache)
	os.Exit(code)
}

// demo is one running runtime joined to the demo airline, with an MCP
// client acting as the model.
type demo struct {
	t     testing.TB
	site  *testsite.Site
	sv    *supervisor.Supervisor
	mcp   *mcp.ClientSession
	srv   *mcp.Server
	audit string // the audit log's path
}

func startDemo(t testing.TB, ctx context.Context) *demo {
	t.Helper()
	return startDemoWith(t, ctx, nil)
}

// startDemoWith is startDemo with a change to the runtime's options.
func startDemoWith(t testing.TB, ctx context.Context, edit func(*supervisor.Options)) *demo {
	t.Helper()
	site, signer, err := startDemoSite()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	opts := &supervisor.Options{
		Company: testsite.CompanyDomain,
		Join: supervisor.JoinOptions{
			Credentials: signer,
			HTTPClient:  site.Client(),
			ReturnTo:    testsite.BookingURL(),
		},
		Browser: supervisor.BrowserOptions{Args: site.BrowserArgs()},
		Live: supervisor.LiveOptions{
			// The User's paired devices, in the test's own folder. These
			// tests drive the User's turn with the token or a link, so they
			// run with --insecure-take-by-link, explicitly; the ones about
			// the proof of presence turn it off and pair a device
			// (TestURLElicitationHandsOverTheTurn).
			Passkeys:           presence.NewStore(filepath.Join(t.TempDir(), presence.FileName)),
			InsecureTakeByLink: true,
		},
		Audit: supervisor.AuditOptions{File: t.TempDir() + "/audit.jsonl"},
	}
	if edit != nil {
		edit(opts)
	}
	sv := supervisor.New(opts)
	if err := sv.Start(ctx); err != nil {
		t.Fatalf("starting the runtime: %v", err)
	}
	t.Cleanup(func() {
		if err := sv.Close(); err != nil {
			t.Errorf("closing the runtime: %v", err)
		}
	})
	srv := mcpserver.New(sv.Gate(), nil)
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-model", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &demo{t: t, site: site, sv: sv, mcp: cs, srv: srv, audit: opts.Audit.File}
}

// result mirrors the action result of the MCP tools (README, "MCP tools").
type result struct {
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Mark    *struct {
		Kind    string `json:"kind"`
		Marked  string `json:"marked"`
		Touches string `json:"touches"`
	} `json:"mark"`
	Page struct {
		URL        string `json:"url"`
		Title      string `json:"title"`
		Controller string `json:"controller"`
		Epoch      int    `json:"epoch"`
	} `json:"page"`
	Text     string    `json:"text"`
	Elements []element `json:"elements"`
	Offer    *struct {
		ID     string `json:"id"`
		Reason string `json:"reason"`
	} `json:"offer"`
	Controller    string `json:"controller"`
	MustReobserve bool   `json:"must_reobserve"`
	CaughtBy      string `json:"caught_by"`
}

type element struct {
	Ref    string `json:"ref"`
	Role   string `json:"role"`
	Name   string `json:"name"`
	Tag    string `json:"tag"`
	Type   string `json:"type"`
	Value  string `json:"value"`
	Marked *struct {
		Kind   string `json:"kind"`
		Marked string `json:"marked"`
	} `json:"marked"`
}

// call runs one tool as the model would and decodes its structured result.
func (d *demo) call(ctx context.Context, tool string, args map[string]any) result {
	d.t.Helper()
	res, err := d.mcp.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		d.t.Fatalf("%s: %v", tool, err)
	}
	// A failed outcome is isError (as in Playwright MCP) and still carries
	// its structured result; an error without one is the test's failure.
	if res.IsError && res.StructuredContent == nil {
		d.t.Fatalf("%s: tool error: %v", tool, contentText(res))
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		d.t.Fatal(err)
	}
	var r result
	if err := json.Unmarshal(raw, &r); err != nil {
		d.t.Fatalf("%s: decoding %s: %v", tool, raw, err)
	}
	// A failed outcome is an error result (README, "MCP tools"); anything else
	// flagged as an error is a broken tool.
	if res.IsError != (r.Outcome == "failed") {
		d.t.Fatalf("%s: isError %v with outcome %q: %v", tool, res.IsError, r.Outcome, contentText(res))
	}
	if tool == "browser_snapshot" && r.Outcome == "done" {
		r.Text = contentText(res) // the text goes out once, as the content
	}
	return r
}

func contentText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func (d *demo) snapshot(ctx context.Context) result {
	d.t.Helper()
	r := d.call(ctx, "browser_snapshot", map[string]any{"elements": true, "since": 0})
	if r.Outcome != "done" {
		d.t.Fatalf("snapshot: %+v", r)
	}
	return r
}

// ref finds the element with that role whose name contains name.
func ref(t testing.TB, snap result, role, name string) element {
	t.Helper()
	for _, e := range snap.Elements {
		if e.Role == role && strings.Contains(e.Name, name) {
			return e
		}
	}
	t.Fatalf("no %s named %q in the snapshot:\n%s", role, name, snap.Text)
	return element{}
}

// user is a scripted User on the live view's websocket.
type user struct {
	t    testing.TB
	conn *websocket.Conn
}

func connectUser(t *testing.T, ctx context.Context, liveURL string) *user {
	t.Helper()
	u, err := url.Parse(liveURL)
	if err != nil {
		t.Fatal(err)
	}
	ws := "ws://" + u.Host + u.Path + "/ws?" + u.RawQuery // the websocket is below the page
	h := http.Header{"Origin": {"http://" + u.Host}}
	conn, _, err := websocket.DefaultDialer.DialContext(ctx, ws, h)
	if err != nil {
		t.Fatalf("connecting the User: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return &user{t: t, conn: conn}
}

func (u *user) send(msg map[string]any) {
	u.t.Helper()
	if err := u.conn.WriteJSON(msg); err != nil {
		u.t.Fatal(err)
	}
}

// await reads messages until one of type typ satisfies ok, or one of a
// type in or arrives (an error answering a request).
func (u *user) await(ctx context.Context, typ string, ok func(map[string]any) bool, or ...string) map[string]any {
	u.t.Helper()
	deadline, _ := ctx.Deadline()
	_ = u.conn.SetReadDeadline(deadline)
	for {
		var m map[string]any
		if err := u.conn.ReadJSON(&m); err != nil {
			u.t.Fatalf("waiting for a %s message: %v", typ, err)
		}
		if m["type"] == typ && (ok == nil || ok(m)) || slices.Contains(or, fmt.Sprint(m["type"])) {
			return m
		}
	}
}

func (u *user) controller(ctx context.Context, want string) {
	u.t.Helper()
	u.await(ctx, "state", func(m map[string]any) bool { return m["controller"] == want })
}

// clickOn locates a selector and clicks its centre, as a person would: once
// the element has stopped moving (the page may still be changing its layout,
// as the check-in page does when it hides its notice for the User).
// A page that is still loading may not hold the element yet: the runtime
// answers the locate with an error, and the User looks again.
func (u *user) clickOn(ctx context.Context, selector string) {
	u.t.Helper()
	var last map[string]any
	for stable := false; !stable; {
		u.send(map[string]any{"type": "locate", "selector": selector})
		box := u.await(ctx, "locate", nil, "error")
		if box["type"] == "error" {
			last = nil
		} else {
			stable = last != nil && box["x"] == last["x"] && box["y"] == last["y"]
			last = box
		}
		select {
		case <-ctx.Done():
			u.t.Fatalf("locating %s (last answer %v): %v", selector, box, ctx.Err())
		case <-time.After(150 * time.Millisecond):
		}
	}
	x := last["x"].(float64) + last["width"].(float64)/2
	y := last["y"].(float64) + last["height"].(float64)/2
	for _, ev := range []string{"move", "down", "up"} {
		u.send(map[string]any{"type": "mouse", "event": ev, "x": x, "y": y, "button": "left"})
	}
}

func waitUntil(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting until %s", what)
		case <-time.After(25 * time.Millisecond):
		}
	}
}

var _ = exec.Command
var _ session.Secret

// onDemoSite starts the demo site for t (closed when t ends) and returns
// it with args followed by the browser flags that send its hosts to it.
func onDemoSite(t *testing.T, args ...string) (*testsite.Site, []string) {
	t.Helper()
	site, _, err := startDemoSite()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	for _, a := range site.BrowserArgs() {
		args = append(args, "--browser-arg", a)
	}
	return site, args
}
