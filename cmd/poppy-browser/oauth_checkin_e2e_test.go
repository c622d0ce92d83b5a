package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/oauth/oauthtest"
	"github.com/poppy-browser/poppy-browser/presence/presencetest"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestOAuthTwoUsersEachCheckIn is issue 45's Done-when in full: on one
// `mcp --http --auth-issuer` runtime, Alice and Bob each complete the
// section 7 flow through their own session. Each User's agent (its own
// token, its own MCP session) chooses a seat, is refused the marked
// Check in and offers control; the User proves with their own passkey in
// their own live view, types a passport number, presses Check in and
// hands back; the airline records a check-in by the User for each. During
// each turn the other User reaches nothing of it: their token on that
// session is refused with 403, and in that session's live view, whose
// link they hold, they see the offer card only and their passkey takes
// nothing.
func TestOAuthTwoUsersEachCheckIn(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	const audience = "https://poppy.test/mcp"
	issuer := oauthtest.New(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "passkeys.json")
	devices := userChromium(t)
	aliceDev := pairFor(t, ctx, store, "alice", devices.NewPage(t))
	bobDev := pairFor(t, ctx, store, "bob", devices.NewPage(t))

	site, args := onDemoSite(t, "mcp", "--company", testsite.CompanyDomain, "--no-join", "--http", "127.0.0.1:0",
		"--live-url-file", "", "--passkeys", store, "--audit-log", filepath.Join(dir, "audit.jsonl"),
		"--auth-issuer", issuer.URL, "--auth-audience", audience)
	rt := startOAuthEndpoint(t, ctx, args)
	defer func() {
		if err := rt.stop(); err != nil {
			t.Errorf("mcp --http: %v", err)
		}
	}()
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
	type person struct {
		name, seat, tok string
		d               *demo
		dev             *presencetest.Device
		checkIn         element // the agent's ref of the marked button
		live            string
	}
	alice := &person{name: "alice", seat: "aisle", tok: issuer.Mint(oauthtest.Token{Sub: "alice", Audience: audience}), dev: aliceDev}
	bob := &person{name: "bob", seat: "window", tok: issuer.Mint(oauthtest.Token{Sub: "bob", Audience: audience}), dev: bobDev}
	people := []*person{alice, bob}
	for _, p := range people {
		p.d = connect(p.tok)
	}

	// 1-2. Each agent goes to check-in, chooses a seat, is refused the
	// marked Check in and offers control.
	checkInURL := "https://" + testsite.CompanyDomain + "/bookings/" + testsite.BookingID + "/check-in"
	for _, p := range people {
		if r := p.d.call(ctx, "browser_navigate", map[string]any{"url": checkInURL}); r.Outcome != "done" {
			t.Fatalf("%s's agent navigates: %+v", p.name, r)
		}
		snap := p.d.snapshot(ctx)
		seat := ref(t, snap, "combobox", "Seat")
		if r := p.d.call(ctx, "browser_select", map[string]any{"ref": seat.Ref, "values": []string{p.seat}}); r.Outcome != "done" {
			t.Fatalf("%s's agent selects %s: %+v", p.name, p.seat, r)
		}
		p.checkIn = ref(t, snap, "button", "Check in")
		if r := p.d.call(ctx, "browser_click", map[string]any{"ref": p.checkIn.Ref}); r.Outcome != "denied" || r.Reason != "user_step" {
			t.Fatalf("%s's agent clicks the marked Check in: %+v", p.name, r)
		}
		r := p.d.call(ctx, "browser_request_user_control", map[string]any{"reason": "The airline asks you to check in yourself", "ref": p.checkIn.Ref})
		if r.Outcome != "done" || r.Offer == nil {
			t.Fatalf("%s's agent offers control: %+v", p.name, r)
		}
	}
	if got := site.CheckIns(); len(got) != 0 {
		t.Fatalf("the airline recorded a check-in no User made: %+v", got)
	}
	waitUntil(t, ctx, "both live views are announced", func() bool {
		for _, m := range regexp.MustCompile(`live view for the User of MCP session (\S+): (\S+)`).FindAllStringSubmatch(rt.stderr.String(), -1) {
			for _, p := range people {
				if m[1] == p.d.mcp.ID() {
					p.live = m[2]
				}
			}
		}
		return alice.live != "" && bob.live != ""
	})

	// 3-4. Each in turn: the User takes with their passkey, checks in and
	// hands back; meanwhile the other User tries that session and fails.
	for i, p := range people {
		other := people[1-i]
		if _, err := p.dev.Page.Navigate(ctx, p.live); err != nil { // the device on the view's origin
			t.Fatal(err)
		}
		u := connectUser(t, ctx, p.live)
		u.controller(ctx, "agent")
		u.prove(ctx, p.dev)
		userReports := countUserReports(site)
		u.send(map[string]any{"type": "take"})
		u.controller(ctx, "user")

		otherReachesNothing(t, ctx, rt.endpoint, other.tok, other.dev, p.d.mcp.ID(), p.live)
		if st := p.d.call(ctx, "browser_control_status", nil); st.Controller != "user" {
			t.Fatalf("%s's turn after %s's tries: %+v", p.name, other.name, st)
		}

		// The page reads "user" (and hides its notice) before the User types.
		if err := site.WaitFor(ctx, func() bool { return countUserReports(site) > userReports }); err != nil {
			t.Fatalf("%s's check-in page never read user: %v", p.name, err)
		}
		u.clickOn(ctx, `input[name="passport_number"]`)
		u.send(map[string]any{"type": "text", "text": "X1234567"})
		u.clickOn(ctx, `#check-in button[type="submit"]`)
		checkIns, err := site.WaitCheckIns(ctx, i+1)
		if err != nil {
			t.Fatal(err)
		}
		if c := checkIns[i]; c.Booking != testsite.BookingID || c.Controller != "user" || c.Seat != p.seat || !c.PassportGiven {
			t.Fatalf("the airline recorded %+v for %s, want controller=user seat=%s with a passport", c, p.name, p.seat)
		}
		u.send(map[string]any{"type": "hand_back"})
		u.controller(ctx, "agent")
		if st := p.d.call(ctx, "browser_control_status", nil); st.Controller != "agent" || !st.MustReobserve {
			t.Fatalf("%s's agent after the hand back: %+v", p.name, st)
		}
		snap := p.d.snapshot(ctx)
		if !strings.Contains(snap.Text, "Your boarding pass is ready") || strings.Contains(snap.Text, "X1234567") {
			t.Errorf("%s's agent after the hand back sees:\n%s", p.name, snap.Text)
		}
	}
	if got := site.CheckIns(); len(got) != 2 {
		t.Errorf("the airline recorded %d check-ins, want one per User: %+v", len(got), got)
	}
}

// countUserReports counts the airline's top frames that reported reading
// controller "user".
func countUserReports(site *testsite.Site) int {
	n := 0
	for _, f := range site.FrameReports() {
		if f.Host == testsite.CompanyDomain && f.Controller == "user" {
			n++
		}
	}
	return n
}

// otherReachesNothing tries, as a User who does not own session, to reach
// it: their token on an MCP call and on ending it gets 403; in its live
// view (whose link they hold) they see the offer card only, their passkey
// is refused and a take is refused.
func otherReachesNothing(t *testing.T, ctx context.Context, endpoint, tok string, dev *presencetest.Device, session, live string) {
	t.Helper()
	for _, method := range []string{http.MethodPost, http.MethodDelete} {
		req, _ := http.NewRequestWithContext(ctx, method, endpoint, strings.NewReader(
			`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"browser_snapshot","arguments":{}}}`))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("another User's %s in session %s: HTTP %d, want 403", method, session, resp.StatusCode)
		}
	}

	// Their device's tab opens the link, so that its passkey answers a
	// ceremony of the live view's own origin.
	if _, err := dev.Page.Navigate(ctx, live); err != nil {
		t.Fatal(err)
	}
	u := connectUser(t, ctx, live)
	defer u.conn.Close()
	var seen []map[string]any
	next := func() map[string]any {
		t.Helper()
		deadline, _ := ctx.Deadline()
		_ = u.conn.SetReadDeadline(deadline)
		var m map[string]any
		if err := u.conn.ReadJSON(&m); err != nil {
			t.Fatalf("another User's view of session %s: %v", session, err)
		}
		seen = append(seen, m)
		return m
	}
	for m := next(); m["type"] != "state"; m = next() {
	}
	u.send(map[string]any{"type": "presence_begin"})
	m := next()
	for m["type"] != "presence_challenge" {
		m = next()
	}
	// The view asks for its owner's credential only, which the other
	// User's device does not hold; they try theirs all the same (no
	// allowCredentials: any passkey of localhost), and the view refuses.
	options, _ := m["options"].(map[string]any)
	pk, _ := options["publicKey"].(map[string]any)
	delete(pk, "allowCredentials")
	opts, err := json.Marshal(options)
	if err != nil {
		t.Fatal(err)
	}
	cred, err := presencetest.Assert(ctx, dev.Page, opts)
	if err != nil {
		t.Fatal(err)
	}
	u.send(map[string]any{"type": "presence", "credential": cred})
	for m = next(); m["type"] != "presence_refused"; m = next() {
		if p, _ := m["presence"].(map[string]any); m["type"] == "state" && p != nil && p["proved"] == true {
			t.Fatalf("another User's passkey proved presence in session %s's view", session)
		}
	}
	if !strings.Contains(fmt.Sprint(m["message"]), "not accepted") {
		t.Errorf("another User's passkey in session %s's view: %v", session, m)
	}
	u.send(map[string]any{"type": "take"})
	for m = next(); m["type"] != "error"; m = next() {
	}
	if !strings.Contains(fmt.Sprint(m["message"]), "prove it's you") {
		t.Errorf("another User's take in session %s's view: %v", session, m)
	}
	for _, m := range seen {
		if m["type"] == "frame" || m["url"] != nil || m["tabs"] != nil || m["step_box"] != nil {
			t.Fatalf("another User's view of session %s showed the page: %v", session, m)
		}
	}
}
