package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestLiveViewsOnTheMCPListener runs `mcp --http --instance rt-a` with two
// go-sdk clients and opens each session's live view in a real Chromium:
// both live views are on the MCP listener under /live/rt-a/KEY, each link
// shows and hands over only its own session's browser, another
// instance's path or session gets 421, one not held 404, and a session's
// end shows its viewer the end and takes its path away.
func TestLiveViewsOnTheMCPListener(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	_, args := onDemoSite(t, "mcp", "--company", testsite.CompanyDomain, "--no-join", "--http", "127.0.0.1:0",
		"--instance", "rt-a", "--live-url-file", "", "--insecure-take-by-link") // the views take with their links
	rt := startHTTPRuntime(t, ctx, args)
	defer func() {
		if err := rt.stop(); err != nil {
			t.Errorf("mcp --http: %v", err)
		}
	}()
	mcpURL, err := url.Parse(rt.endpoint)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: bearer{rt.token, http.DefaultTransport}}
	connect := func() *mcp.ClientSession {
		t.Helper()
		c := mcp.NewClient(&mcp.Implementation{Name: "model", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: rt.endpoint, HTTPClient: client, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	csA, csB := connect(), connect()
	defer csB.Close()
	for _, cs := range []*mcp.ClientSession{csA, csB} {
		if !strings.HasPrefix(cs.ID(), "rt-a.") {
			t.Errorf("session id %q does not name its instance rt-a", cs.ID())
		}
	}
	a, b := &demo{t: t, mcp: csA}, &demo{t: t, mcp: csB}
	pageA := "https://" + testsite.CompanyDomain + "/fixtures/check-in-unmarked"
	pageB := "https://" + testsite.CompanyDomain + "/fixtures/popup"
	if r := a.call(ctx, "browser_navigate", map[string]any{"url": pageA}); r.Outcome != "done" {
		t.Fatalf("A navigates: %+v", r)
	}
	if r := b.call(ctx, "browser_navigate", map[string]any{"url": pageB}); r.Outcome != "done" {
		t.Fatalf("B navigates: %+v", r)
	}

	liveOf := map[string]*url.URL{}
	for _, m := range regexp.MustCompile(`live view for the User of MCP session (\S+): (\S+)`).FindAllStringSubmatch(rt.stderr.String(), -1) {
		u, err := url.Parse(m[2])
		if err != nil {
			t.Fatal(err)
		}
		liveOf[m[1]] = u
	}
	liveA, liveB := liveOf[csA.ID()], liveOf[csB.ID()]
	if liveA == nil || liveB == nil {
		t.Fatalf("live views by session: %v", liveOf)
	}
	pathRE := regexp.MustCompile(`^/live/rt-a/[A-Za-z0-9_-]{32}$`)
	for _, u := range []*url.URL{liveA, liveB} {
		if u.Host != strings.Replace(mcpURL.Host, "127.0.0.1", "localhost", 1) || !pathRE.MatchString(u.Path) {
			t.Errorf("live view at %s, want on the MCP listener %s under /live/rt-a/KEY", u.Redacted(), mcpURL.Host)
		}
	}
	if liveA.Path == liveB.Path || liveA.Query().Get("token") == liveB.Query().Get("token") {
		t.Fatal("two sessions share a live view path or token")
	}

	// What a proxy or a stranger gets, over plain HTTP.
	get := func(path, token string) (int, string) {
		t.Helper()
		u := *liveA
		u.Path, u.RawQuery = path, url.Values{"token": {token}}.Encode()
		resp, err := http.Get(u.String())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Poppy-Instance") + " " + string(body)
	}
	keyA := strings.TrimPrefix(liveA.Path, "/live/rt-a/")
	tokA, tokB := liveA.Query().Get("token"), liveB.Query().Get("token")
	if code, _ := get(liveA.Path, tokA); code != http.StatusOK {
		t.Errorf("A's page with A's token: %d", code)
	}
	if code, _ := get(liveA.Path+"/ws", tokB); code != http.StatusForbidden {
		t.Errorf("A's websocket with B's token: %d, want 403", code)
	}
	if code, body := get("/live/rt-b/"+keyA, tokA); code != http.StatusMisdirectedRequest || !strings.HasPrefix(body, "rt-a ") {
		t.Errorf("another instance's path: %d %q, want 421 from rt-a", code, body)
	}
	if code, _ := get("/live/rt-a/"+strings.Repeat("x", 32), tokA); code != http.StatusNotFound {
		t.Errorf("a live view not held: %d, want 404", code)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, rt.endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", "rt-b."+strings.TrimPrefix(csA.ID(), "rt-a."))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest || resp.Header.Get("Poppy-Instance") != "rt-a" {
		t.Errorf("MCP request for another instance's session: %d (instance %q), want 421 from rt-a", resp.StatusCode, resp.Header.Get("Poppy-Instance"))
	}

	// The Users' browser: each opens their own link.
	viewerBrowser, err := browser.Launch(ctx, &browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer viewerBrowser.Close()
	open := func(u *url.URL) *browser.Page {
		t.Helper()
		bc, err := viewerBrowser.NewContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p, err := bc.NewPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Navigate(ctx, u.String()); err != nil {
			t.Fatal(err)
		}
		return p
	}
	viewA, viewB := open(liveA), open(liveB)
	read := func(p *browser.Page, fn string) string {
		t.Helper()
		var s string
		if err := p.MainFrame().Call(ctx, browser.UtilityWorld, fn, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	const shows = `function(){ return document.getElementById("address").value + " " + document.getElementById("take").disabled }`
	waitUntil(t, ctx, "A's viewer shows A's page", func() bool { return read(viewA, shows) == pageA+" false" })
	waitUntil(t, ctx, "B's viewer shows B's page", func() bool { return read(viewB, shows) == pageB+" false" })
	waitUntil(t, ctx, "A's screencast reaches its viewer", func() bool {
		return read(viewA, `function(){ const s = document.getElementById("screen"); return String(!!s.querySelector("img[src]")) }`) == "true"
	})

	read(viewA, `function(){ document.getElementById("take").click(); return "" }`)
	waitUntil(t, ctx, "A's User holds A's browser", func() bool {
		return a.call(ctx, "browser_control_status", nil).Controller == "user"
	})
	if st := b.call(ctx, "browser_control_status", nil); st.Controller != "agent" {
		t.Errorf("B's controller after A's User took control in A's link: %q", st.Controller)
	}
	if r := b.call(ctx, "browser_navigate", map[string]any{"url": pageA}); r.Outcome != "done" {
		t.Errorf("B acts while A's User holds A's browser: %+v", r)
	}
	waitUntil(t, ctx, "B's viewer follows B's page, not A's", func() bool { return read(viewB, shows) == pageA+" false" })
	if got := read(viewA, `function(){ return String(document.getElementById("hand_back").hidden) }`); got != "false" {
		t.Errorf("A's viewer while A's User holds control offers no hand back (hidden %s)", got)
	}
	if got := read(viewB, `function(){ return String(document.getElementById("hand_back").hidden) }`); got != "true" {
		t.Errorf("B's viewer offers a hand back of a control B's User never took (hidden %s)", got)
	}

	// A's session ends: its viewer shows the end (no reconnecting), its
	// path is gone, B's carries on.
	if err := csA.Close(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, ctx, "A's viewer shows the end", func() bool {
		return read(viewA, `function(){ return document.getElementById("banner").textContent + " / " + document.getElementById("take").disabled }`) == "The agent finished / true"
	})
	if code, _ := get(liveA.Path, tokA); code != http.StatusNotFound {
		t.Errorf("an ended session's live view: %d, want 404", code)
	}
	if got := read(viewB, shows); got != pageA+" false" {
		t.Errorf("B's viewer after A's session ended: %q", got)
	}
}
