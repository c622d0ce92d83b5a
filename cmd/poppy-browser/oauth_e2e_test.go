package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/oauth"
	"github.com/poppy-browser/poppy-browser/oauth/oauthtest"
	"github.com/poppy-browser/poppy-browser/presence/presencetest"
	"github.com/poppy-browser/poppy-browser/testsite"
	"github.com/poppy-browser/poppy-browser/ui"
)

// pairFor runs `pair --subject sub` (the operator's onboarding of that
// User) and pairs the User's device, a virtual authenticator in page p,
// through the link it prints.
func pairFor(t *testing.T, ctx context.Context, store, sub string, p *browser.Page) *presencetest.Device {
	t.Helper()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"pair", "--passkeys", store, "--subject", sub, "--ttl", "2m"}, strings.NewReader(""), pw, io.Discard)
		pw.CloseWithError(err)
		done <- err
	}()
	link := ""
	sc := bufio.NewScanner(pr)
	for link == "" && sc.Scan() {
		link = regexp.MustCompile(`http://localhost:\d+/pair/[A-Za-z0-9_-]+`).FindString(sc.Text())
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if link == "" {
		t.Fatal("pair --subject printed no link")
	}
	dev, err := presencetest.Pair(ctx, p, link)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("pair --subject %s: %v", sub, err)
	}
	return dev
}

var announcedOAuth = regexp.MustCompile(`MCP \(Streamable HTTP\) at (http://\S+) for OAuth access tokens`)

// TestOAuthTwoUsersOneRuntime runs `mcp --http --auth-issuer` with two
// Users of a test authorization server, each with a passkey the operator
// paired for their subject: each User's agent works in their own session
// (go-sdk client, their own token) and each User takes and hands back
// their own turn with their passkey in their own live view; Bob's token
// reaches nothing of Alice's session (a call, its end), and Bob's passkey
// in Alice's live view, whose link he holds, takes nothing. The audit log
// names each session's subject by its hash only.
func TestOAuthTwoUsersOneRuntime(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	const audience = "https://poppy.test/mcp"
	issuer := oauthtest.New(t)
	dir := t.TempDir()
	store, auditPath := filepath.Join(dir, "passkeys.json"), filepath.Join(dir, "audit.jsonl")
	users := userChromium(t)
	aliceDev := pairFor(t, ctx, store, "alice", users.NewPage(t))
	bobDev := pairFor(t, ctx, store, "bob", users.NewPage(t))

	_, args := onDemoSite(t, "mcp", "--company", testsite.CompanyDomain, "--no-join", "--http", "127.0.0.1:0",
		"--live-url-file", "", "--passkeys", store, "--audit-log", auditPath,
		"--auth-issuer", issuer.URL, "--auth-audience", audience)
	rt := startOAuthEndpoint(t, ctx, args)
	defer func() {
		if err := rt.stop(); err != nil {
			t.Errorf("mcp --http: %v", err)
		}
	}()
	aliceTok := issuer.Mint(oauthtest.Token{Sub: "alice", Audience: audience})
	bobTok := issuer.Mint(oauthtest.Token{Sub: "bob", Audience: audience})
	connect := func(tok string) *demo {
		t.Helper()
		c := mcp.NewClient(&mcp.Implementation{Name: "model", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: rt.endpoint,
			HTTPClient: &http.Client{Transport: &oauthtest.Bearer{Token: func() string { return tok }}}, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return &demo{t: t, mcp: cs}
	}
	alice, bob := connect(aliceTok), connect(bobTok)
	checkIn := "https://" + testsite.CompanyDomain + "/bookings/bkg_4Rt9/check-in"
	for _, d := range []*demo{alice, bob} {
		if r := d.call(ctx, "browser_navigate", map[string]any{"url": checkIn}); r.Outcome != "done" {
			t.Fatalf("navigate: %+v", r)
		}
		if r := d.call(ctx, "browser_request_user_control", map[string]any{"reason": "Check in yourself"}); r.Outcome != "done" {
			t.Fatalf("offer: %+v", r)
		}
	}
	liveOf := map[string]string{}
	waitUntil(t, ctx, "both live views are announced", func() bool {
		for _, m := range regexp.MustCompile(`live view for the User of MCP session (\S+): (\S+)`).FindAllStringSubmatch(rt.stderr.String(), -1) {
			liveOf[m[1]] = m[2]
		}
		return liveOf[alice.mcp.ID()] != "" && liveOf[bob.mcp.ID()] != ""
	})

	// Bob's token on Alice's session: refused, and her session stays.
	for _, method := range []string{http.MethodPost, http.MethodDelete} {
		req, _ := http.NewRequestWithContext(ctx, method, rt.endpoint, strings.NewReader(
			`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"browser_snapshot","arguments":{}}}`))
		req.Header.Set("Authorization", "Bearer "+bobTok)
		req.Header.Set("Mcp-Session-Id", alice.mcp.ID())
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
			t.Errorf("Bob's %s in Alice's session: HTTP %d %q", method, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}

	// Bob, holding Alice's live view link, tries his passkey: nothing.
	take := func(dev *presencetest.Device, live string) {
		t.Helper()
		if _, err := dev.Page.Navigate(ctx, live); err != nil {
			t.Fatal(err)
		}
		waitUntil(t, ctx, "the take button is enabled", func() bool {
			var on bool
			err := dev.Page.MainFrame().Call(ctx, browser.UtilityWorld, `function(){ const b = document.getElementById("take"); return !!b && !b.disabled }`, &on)
			return err == nil && on
		})
		if err := presencetest.Click(ctx, dev.Page, "#take"); err != nil {
			t.Fatal(err)
		}
	}
	take(bobDev, liveOf[alice.mcp.ID()])
	waitUntil(t, ctx, "Bob's passkey is refused in Alice's live view", func() bool {
		return strings.TrimSpace(evalText(ctx, t, bobDev.Page, "status")) != "" || // the refusal, in words
			alice.call(ctx, "browser_control_status", nil).Controller == "user"
	})
	if st := alice.call(ctx, "browser_control_status", nil); st.Controller != "agent" {
		t.Fatalf("Bob's passkey took Alice's turn: %+v", st)
	}

	// Each User takes and hands back their own turn.
	for _, u := range []struct {
		name string
		d    *demo
		dev  *presencetest.Device
	}{{"alice", alice, aliceDev}, {"bob", bob, bobDev}} {
		take(u.dev, liveOf[u.d.mcp.ID()])
		waitUntil(t, ctx, u.name+" holds control", func() bool {
			return u.d.call(ctx, "browser_control_status", nil).Controller == "user"
		})
		top := func() (browser.Frame, bool) { return u.dev.Page.MainFrame(), true }
		waitShown(t, ctx, u.dev.Page, top, "#hand_back")
		pressIn(ctx, t, u.dev.Page, u.dev.Page.MainFrame(), "#hand_back", false)
		if st := u.d.call(ctx, "browser_wait_for_control", map[string]any{"timeout_seconds": 30}); st.Controller != "agent" {
			t.Fatalf("%s's agent after the hand back: %+v", u.name, st)
		}
		if r := u.d.snapshot(ctx); r.Outcome != "done" {
			t.Fatalf("%s's agent goes on: %+v", u.name, r)
		}
	}

	// The audit log: whose session is whose, by hash; each take by that
	// User's own passkey.
	b, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"alice"`) || strings.Contains(string(b), aliceTok[:30]) {
		t.Error("the audit log names a subject or holds a token")
	}
	subjectOf, takes := map[string]string{}, map[string][]string{}
	for line := range strings.Lines(string(b)) {
		var e audit.Entry
		if json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		if e.Event == audit.EventSessionStart {
			subjectOf[e.Session] = e.Subject
		}
		if e.Event == audit.EventControl && e.How == audit.HowTake && e.Proof != nil {
			takes[e.Session] = append(takes[e.Session], e.Proof.Credential)
		}
	}
	if subjectOf[alice.mcp.ID()] != oauth.SubjectHash("alice") || subjectOf[bob.mcp.ID()] != ui.SubjectHash("bob") {
		t.Errorf("session_start subjects: %v", subjectOf)
	}
	if got := takes[alice.mcp.ID()]; len(got) != 1 || got[0] != aliceDev.ID {
		t.Errorf("takes of Alice's session: %v, want one by %s", got, aliceDev.ID)
	}
	if got := takes[bob.mcp.ID()]; len(got) != 1 || got[0] != bobDev.ID {
		t.Errorf("takes of Bob's session: %v, want one by %s", got, bobDev.ID)
	}
}

// TestOAuthLiveIdentityNamesTheSessionsSubject: with --live-identity-*
// and no --user, a session's live view takes only the operator's signed
// identity of the subject whose token began the session: Alice's view
// answers Alice's identity, and refuses Bob's with one line.
func TestOAuthLiveIdentityNamesTheSessionsSubject(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	const audience, liveAudience = "https://poppy.test/mcp", "poppy-live"
	issuer := oauthtest.New(t)
	_, args := onDemoSite(t, "mcp", "--company", testsite.CompanyDomain, "--no-join", "--http", "127.0.0.1:0", "--live-url-file", "",
		"--auth-issuer", issuer.URL, "--auth-audience", audience,
		"--live-identity-header", "X-Poppy-Identity", "--live-identity-jwks", issuer.URL+"/jwks",
		"--live-identity-issuer", issuer.URL, "--live-identity-audience", liveAudience)
	rt := startOAuthEndpoint(t, ctx, args)
	defer func() {
		if err := rt.stop(); err != nil {
			t.Errorf("mcp --http: %v", err)
		}
	}()
	tok := issuer.Mint(oauthtest.Token{Sub: "alice", Audience: audience})
	c := mcp.NewClient(&mcp.Implementation{Name: "model", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: rt.endpoint,
		HTTPClient: &http.Client{Transport: &oauthtest.Bearer{Token: func() string { return tok }}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_control_status"}); err != nil {
		t.Fatal(err)
	}
	live := ""
	waitUntil(t, ctx, "the live view is announced", func() bool {
		m := regexp.MustCompile(`live view for the User of MCP session \S+: (\S+)`).FindStringSubmatch(rt.stderr.String())
		if m != nil {
			live = m[1]
		}
		return m != nil
	})
	for _, tc := range []struct {
		name, sub string
		code      int
	}{{"alice's identity", "alice", http.StatusOK}, {"bob's identity", "bob", http.StatusForbidden}} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, live, nil)
		req.Header.Set("X-Poppy-Identity", issuer.Mint(oauthtest.Token{Sub: tc.sub, Audience: liveAudience}))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code || (tc.code != http.StatusOK && !strings.Contains(string(body), "another user")) {
			t.Errorf("%s: %d %.200q, want %d", tc.name, resp.StatusCode, body, tc.code)
		}
	}
}

// TestOAuthRefusesTheStaticToken: with --auth-issuer, a POPPY_MCP_TOKEN
// in the environment is not quietly accepted beside OAuth: the command
// says to unset it.
func TestOAuthRefusesTheStaticToken(t *testing.T) {
	t.Setenv("POPPY_MCP_TOKEN", "planted-static-token")
	var stderr syncBuffer
	err := run(t.Context(), []string{"mcp", "--company", testsite.CompanyDomain, "--no-join", "--http", "127.0.0.1:0",
		"--auth-issuer", "https://idp.example", "--auth-audience", "https://poppy.example/mcp"}, strings.NewReader(""), io.Discard, &stderr)
	if err == nil || !strings.Contains(err.Error(), "POPPY_MCP_TOKEN is set") || strings.Contains(err.Error(), "planted") {
		t.Errorf("run = %v", err)
	}
}

// startOAuthEndpoint runs `mcp --http` with args (an OAuth resource
// server) until the test ends, and returns it once its endpoint is
// announced. The caller stops it to see how it ended.
func startOAuthEndpoint(t *testing.T, ctx context.Context, args []string) *httpRuntime {
	t.Helper()
	rt := &httpRuntime{}
	rt.stop = runInTest(t, ctx, args, &rt.stderr)
	waitUntil(t, ctx, "the endpoint is announced", func() bool {
		m := announcedOAuth.FindStringSubmatch(rt.stderr.String())
		if m != nil {
			rt.endpoint = m[1]
		}
		return m != nil
	})
	return rt
}
