package ui

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/presence"
	"github.com/poppy-browser/poppy-browser/presence/presencetest"
)

// startLivePasskeys starts a live view as the runtime does by default:
// no take without a proof of presence, passkeys in a store of the test's
// own. It returns the view and the store.
func startLivePasskeys(t *testing.T, ctl *control.Control, page *browser.Page, hook func(*Live)) (*Live, *presence.Store) {
	t.Helper()
	store := presence.NewStore(filepath.Join(t.TempDir(), presence.FileName))
	l, _ := startLiveWith(t, ctl, page, hook, &LiveOptions{Passkeys: store})
	return l, store
}

// auditedControl is a Control whose audit lines go to a buffer.
func auditedControl() (*control.Control, *logBuffer) {
	buf := &logBuffer{}
	return control.New(&control.Options{Audit: audit.New(buf, nil)}), buf
}

// noFrameUntilRefused sends take and hand back (and, while the User
// holds control, cancel) on c and reads up to their refusals, failing if
// a picture of the page comes first, or if one is not refused.
func noFrameUntilRefused(ctx context.Context, t *testing.T, who string, c *websocket.Conn, types ...string) {
	t.Helper()
	if len(types) == 0 {
		types = []string{"take", "hand_back"}
	}
	for _, typ := range types {
		send(t, c, map[string]string{"type": typ})
		for {
			var m message
			if err := c.ReadJSON(&m); err != nil {
				t.Fatalf("%s: reading after %s: %v", who, typ, err)
			}
			if m.Type == "frame" || m.Type == "step" {
				t.Fatalf("%s: got a %s before any proof of presence", who, m.Type)
			}
			if m.Type == "state" && (m.URL != "" || len(m.Tabs) > 0 || m.Presence == nil || m.Presence.Proved) {
				t.Fatalf("%s: state before any proof of presence shows more than the offer card: %+v", who, m)
			}
			if m.Type == "error" {
				if !strings.Contains(m.Message, "prove it's you") {
					t.Errorf("%s: %s refused with %q, want the proof asked for", who, typ, m.Message)
				}
				break
			}
		}
	}
}

// TestNoTakeWithoutPresence is the attacker's test: the agent's own
// software holding every login a client can get (the per-run token of
// stderr and --live-url-file, an offer's link spent by a program with the
// Origin and X-Poppy-Link it chose, the MCP App's login from an origin of
// its own) connects, and gets the offer card only: no picture, no page
// address, no take, no hand back (a decline, which a client may send
// anyway, gives nothing). Control stays where it is,
// and the audit log records no take by a link.
func TestNoTakeWithoutPresence(t *testing.T) {
	ctx := testContext(t)
	agentPage := newPage(ctx, t, "http://company.test/form") // it spins: frames keep coming
	ctl, auditLog := auditedControl()
	var frames atomic.Int64
	l, _ := startLivePasskeys(t, ctl, agentPage, func(l *Live) { l.onFrame = func() { frames.Add(1) } })
	offer := ctl.RequestUser("check in yourself", &control.Step{Kind: "submission", Text: "Check in"})

	token := connect(ctx, t, l)

	link, err := l.MintLink(offer.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	status, secret, _ := takeLink(ctx, t, nil, link.URL) // a program: Origin and X-Poppy-Link of its choosing
	if status != http.StatusOK || secret == "" {
		t.Fatalf("spending the link by hand: status %d", status)
	}
	linked, resp, err := dialLogin(ctx, l, nil, secret)
	if err != nil {
		t.Fatalf("dialing with the link's login: %v (%v)", err, resp)
	}
	defer linked.Close()

	app, err := l.MintAppLogin(offer.ID)
	if err != nil {
		t.Fatal(err)
	}
	appConn, resp, err := (&websocket.Dialer{Subprotocols: []string{viewerProtocol, viewerProtocolPrefix + app.Secret}}).
		DialContext(ctx, app.WS, http.Header{"Origin": {"https://attacker.example"}})
	if err != nil {
		t.Fatalf("dialing with the app's login: %v (%v)", err, resp)
	}
	defer appConn.Close()

	views := map[string]*websocket.Conn{"the per-run token": token, "a link spent by a program": linked, "the MCP App's login": appConn}
	for who, c := range views {
		m := awaitType(ctx, t, c, "state")
		if m.Presence == nil || m.Presence.Proved || m.URL != "" || m.Offer == nil || m.Offer.Reason != "check in yourself" {
			t.Errorf("%s: first state = %+v, want the offer card, unproved", who, m)
		}
	}
	poll(ctx, t, "the screencast to run", func() bool { return frames.Load() >= 3 })
	for who, c := range views {
		noFrameUntilRefused(ctx, t, who, c)
	}
	if h := ctl.Holder(); h != "agent" {
		t.Fatalf("holder = %q after the logins' takes, want agent", h)
	}
	if ctl.Status().Offer == nil {
		t.Fatal("the offer ended while logins without a proof tried to take it")
	}

	// The User takes at their terminal: no login hands back for them.
	if err := ctl.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	for who, c := range views {
		noFrameUntilRefused(ctx, t, who, c, "take", "hand_back", "cancel")
	}
	if h := ctl.Holder(); h != "user" {
		t.Fatalf("holder = %q after the logins' hand backs, want user", h)
	}
	var takes []audit.Entry
	for line := range strings.Lines(auditLog.String()) {
		var e audit.Entry
		if json.Unmarshal([]byte(line), &e) == nil && e.Event == audit.EventControl && e.How == audit.HowTake {
			takes = append(takes, e)
		}
	}
	if len(takes) != 1 || takes[0].Proof == nil || takes[0].Proof.Kind != "terminal" {
		t.Fatalf("takes in the audit log = %+v, want one, proof terminal", takes)
	}
}

// pairHere pairs a virtual authenticator with l, through a pairing link
// l minted for its terminal UI, in a fresh tab.
func pairHere(ctx context.Context, t *testing.T, l *Live) *presencetest.Device {
	t.Helper()
	pl, err := l.MintPairing()
	if err != nil {
		t.Fatal(err)
	}
	d, err := presencetest.Pair(ctx, chromium.NewPage(t), pl.URL)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// takesIn returns the take lines of an audit log.
func takesIn(log string) []audit.Entry {
	var takes []audit.Entry
	for line := range strings.Lines(log) {
		var e audit.Entry
		if json.Unmarshal([]byte(line), &e) == nil && e.Event == audit.EventControl && e.How == audit.HowTake {
			takes = append(takes, e)
		}
	}
	return takes
}

// openLinkAndTake opens an offer's link in p, as the User does: the link
// page's button, then the live view asks the device for the proof and
// takes control.
func openLinkAndTake(ctx context.Context, t *testing.T, p *browser.Page, url string) {
	t.Helper()
	if _, err := p.Navigate(ctx, url); err != nil {
		t.Fatal(err)
	}
	if err := presencetest.Click(ctx, p, "#go"); err != nil {
		t.Fatal(err)
	}
}

// TestPasskeyTakes: a device paired through the terminal's pairing link
// takes control from a desktop view and from a phone-sized touch view, one
// ceremony each; the view shows the page only then; each take's audit
// line names the passkey and its user verification.
func TestPasskeyTakes(t *testing.T) {
	ctx := testContext(t)
	agentPage := newPage(ctx, t, "http://company.test/checkin")
	buf := &logBuffer{}
	ctl := control.New(&control.Options{Handover: screenOf{agentPage.Context()}, Audit: audit.New(buf, nil)})
	l, _ := startLivePasskeys(t, ctl, agentPage, nil)
	if u := l.URL(); !strings.HasPrefix(u, "http://localhost:") {
		t.Fatalf("live view URL %q: a loopback live view is served as localhost (an IP cannot be an RP ID)", u)
	}
	dev := pairHere(ctx, t, l)

	read := func(p *browser.Page, fn string) string { return evalString(ctx, t, p, fn) }
	picture := func(p *browser.Page) bool {
		return read(p, `function(){ return String(document.getElementById("frame").naturalWidth > 0) }`) == "true"
	}

	// The desktop: the link opens the card, the device proves it's the
	// User, the take follows.
	offer := ctl.RequestUser("check in yourself", &control.Step{Kind: "submission", Text: "Check in"})
	link, err := l.MintLink(offer.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	openLinkAndTake(ctx, t, dev.Page, link.URL)
	poll(ctx, t, "the take", func() bool { return ctl.Holder() == "user" })
	poll(ctx, t, "the picture after the proof", func() bool { return picture(dev.Page) })
	if err := presencetest.Click(ctx, dev.Page, "#hand_back"); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "the hand back", func() bool { return ctl.Holder() == "agent" })

	// The phone: the same device, another view, its own ceremony.
	phoneTab := chromium.NewPage(t)
	if err := phoneTab.Context().EmulateDevice(ctx, &phone); err != nil {
		t.Fatal(err)
	}
	if _, err := dev.Carry(ctx, phoneTab, true); err != nil {
		t.Fatal(err)
	}
	offer = ctl.RequestUser("check in on your phone", nil)
	link, err = l.MintLink(offer.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	openLinkAndTake(ctx, t, phoneTab, link.URL)
	poll(ctx, t, "the take on the phone", func() bool { return ctl.Holder() == "user" })
	poll(ctx, t, "the picture on the phone", func() bool { return picture(phoneTab) })

	takes := takesIn(buf.String())
	if len(takes) != 2 {
		t.Fatalf("takes = %+v, want 2", takes)
	}
	for i, e := range takes {
		if p := e.Proof; p == nil || p.Kind != "passkey" || p.Credential != dev.ID || !p.UserVerified {
			t.Errorf("take %d proof = %+v, want passkey %s, user verified", i, p, dev.ID)
		}
	}
	if d := takes[1].Device; d == nil || !d.Touch || d.Width != phone.Width {
		t.Errorf("phone take's device = %+v, want the phone's", d)
	}
}

// ceremony begins a ceremony on c and returns its options.
func ceremony(ctx context.Context, t *testing.T, c *websocket.Conn) json.RawMessage {
	t.Helper()
	send(t, c, map[string]string{"type": "presence_begin"})
	for {
		m := next(ctx, t, c, false)
		switch m.Type {
		case "presence_challenge":
			return m.Options
		case "presence_refused":
			t.Fatalf("ceremony refused at its start: %s", m.Message)
		}
	}
}

// answer sends credential on c and reports whether the view is proved
// (a state saying so) or refused.
func answer(ctx context.Context, t *testing.T, c *websocket.Conn, credential json.RawMessage) bool {
	t.Helper()
	send(t, c, map[string]any{"type": "presence", "credential": credential})
	for {
		m := next(ctx, t, c, false)
		switch {
		case m.Type == "presence_refused":
			return false
		case m.Type == "state" && m.Presence != nil && m.Presence.Proved:
			return true
		}
	}
}

// TestPasskeyRefusals: an assertion made for another offer, a replayed
// assertion (on its own view or another), a credential that is not
// paired and a device that cannot verify the User prove nothing; a
// revoked device's proof ends, and with it the view's picture and take.
func TestPasskeyRefusals(t *testing.T) {
	ctx := testContext(t)
	agentPage := newPage(ctx, t, "http://company.test/form")
	ctl := control.New(nil)
	l, store := startLivePasskeys(t, ctl, agentPage, nil)
	dev := pairHere(ctx, t, l) // its tab stays on the live view's origin

	ctl.RequestUser("first", nil)
	view := connect(ctx, t, l)
	opts := ceremony(ctx, t, view)
	stale, err := presencetest.Assert(ctx, dev.Page, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctl.RequestUser("second", nil) // replaces the first offer
	if answer(ctx, t, view, stale) {
		t.Fatal("an assertion made for another offer proved the User's presence")
	}

	opts = ceremony(ctx, t, view)
	good, err := presencetest.Assert(ctx, dev.Page, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !answer(ctx, t, view, good) {
		t.Fatal("the paired device's assertion was refused")
	}
	if answer(ctx, t, view, good) {
		t.Fatal("an answer to a ceremony already spent proved the User's presence")
	}
	other := connect(ctx, t, l)
	ceremony(ctx, t, other)
	if answer(ctx, t, other, good) {
		t.Fatal("a replayed assertion proved the User's presence in another view")
	}
	ceremony(ctx, t, view)
	if answer(ctx, t, view, good) {
		t.Fatal("a replayed assertion proved the User's presence again")
	}

	// A credential this runtime never paired, in a tab of the live view's
	// origin, answering a ceremony whose allow list a program removed.
	l2, _ := startLivePasskeys(t, control.New(nil), nil, nil)
	stranger := pairHere(ctx, t, l2)
	strangerHere := chromium.NewPage(t)
	if _, err := stranger.Carry(ctx, strangerHere, true); err != nil {
		t.Fatal(err)
	}
	if _, err := strangerHere.Navigate(ctx, l.URL()); err != nil {
		t.Fatal(err)
	}
	var o map[string]map[string]any
	if err := json.Unmarshal(ceremony(ctx, t, other), &o); err != nil {
		t.Fatal(err)
	}
	delete(o["publicKey"], "allowCredentials")
	stripped, _ := json.Marshal(o)
	foreign, err := presencetest.Assert(ctx, strangerHere, stripped)
	if err != nil {
		t.Fatal(err)
	}
	if answer(ctx, t, other, foreign) {
		t.Fatal("a credential that was never paired proved the User's presence")
	}

	// A device that cannot verify the User gives no assertion at all.
	if err := dev.Authenticator.SetUserVerified(ctx, false); err != nil {
		t.Fatal(err)
	}
	if _, err := presencetest.Assert(ctx, dev.Page, ceremony(ctx, t, other)); err == nil {
		t.Fatal("a device without user verification answered a ceremony that requires it")
	}

	// Revocation ends the proof: the view falls back to the card.
	if err := ctl.User().Take(ctx); err != nil { // the terminal's take; the view's proof was for the offer
		t.Fatal(err)
	}
	if err := store.Revoke(dev.ID); err != nil {
		t.Fatal(err)
	}
	for {
		m := next(ctx, t, view, false)
		if m.Type == "state" && m.Presence != nil && !m.Presence.Proved {
			break
		}
	}
	noFrameUntilRefused(ctx, t, "a revoked device's view", view)
	send(t, view, map[string]string{"type": "presence_begin"})
	if m := awaitType(ctx, t, view, "presence_refused"); !strings.Contains(m.Message, "No device is paired") {
		t.Errorf("ceremony after revocation refused with %q", m.Message)
	}
}

// pairPost POSTs a pairing step as the pairing page's script does (its own
// Origin and header), or with the headers given.
func pairPost(ctx context.Context, t *testing.T, u, step string, headers map[string]string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u+"/"+step, strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestPairingLinkWorksOnce: a pairing link's page spends nothing; only its
// own page's POST begins a pairing (a foreign or missing Origin, or no
// X-Poppy-Pair, is refused); the first begin spends it; an expired link
// works no more.
func TestPairingLinkWorksOnce(t *testing.T) {
	ctx := testContext(t)
	clock := &testClock{now: time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)}
	l, _ := startLivePasskeys(t, control.New(nil), nil, func(l *Live) { l.pairs = newPairLinks(DefaultPairTTL, clock.Now) })
	pl, err := l.MintPairing()
	if err != nil {
		t.Fatal(err)
	}
	self := "http://" + liveAddr(l)
	for range 2 {
		if status, body, _ := getLink(ctx, t, pl.URL, nil); status != http.StatusOK || !strings.Contains(body, "Pair with a passkey") {
			t.Fatalf("GET of the pairing link = %d, want the page", status)
		}
	}
	for name, h := range map[string]map[string]string{
		"no Origin":       {"X-Poppy-Pair": "1"},
		"another Origin":  {"Origin": "http://localhost:1", "X-Poppy-Pair": "1"},
		"no header":       {"Origin": self},
		"cross-site mode": {"Origin": self, "X-Poppy-Pair": "1", "Sec-Fetch-Site": "cross-site"},
	} {
		if status := pairPost(ctx, t, pl.URL, "begin", h); status != http.StatusForbidden {
			t.Errorf("%s: begin = %d, want 403", name, status)
		}
	}
	own := map[string]string{"Origin": self, "X-Poppy-Pair": "1"}
	if status := pairPost(ctx, t, pl.URL, "begin", own); status != http.StatusOK {
		t.Fatalf("begin from its own page = %d, want 200", status)
	}
	if status := pairPost(ctx, t, pl.URL, "begin", own); status != http.StatusGone {
		t.Errorf("a second begin = %d, want 410: a pairing link works once", status)
	}
	if status, body, _ := getLink(ctx, t, pl.URL, nil); status != http.StatusGone || !strings.Contains(body, "already been used") {
		t.Errorf("the spent link's page = %d %q", status, body)
	}

	late, err := l.MintPairing()
	if err != nil {
		t.Fatal(err)
	}
	clock.Add(DefaultPairTTL)
	if status, body, _ := getLink(ctx, t, late.URL, nil); status != http.StatusGone || !strings.Contains(body, "expired") {
		t.Errorf("the expired link's page = %d %q", status, body)
	}
	if status := pairPost(ctx, t, late.URL, "begin", own); status != http.StatusGone {
		t.Errorf("begin with an expired link = %d, want 410", status)
	}
}

// TestInsecureTakeOnlyOnLoopback: --insecure-take-by-link is refused on a
// live view other machines reach; on loopback every take through it is
// warned of and recorded as insecure-link.
func TestInsecureTakeOnlyOnLoopback(t *testing.T) {
	certFile, keyFile := selfSignedFiles(t)
	for name, o := range map[string]*LiveOptions{
		"behind a proxy":   {PublicURL: "https://agent.example.com"},
		"over TLS":         {Addr: "0.0.0.0:0", TLSCert: certFile, TLSKey: keyFile},
		"embedded by apps": {TLSCert: certFile, TLSKey: keyFile, EmbedOrigins: []string{"https://app.example.com"}},
	} {
		o.InsecureTakeByLink = true
		if err := CheckServing(o.Addr, o); err == nil || !strings.Contains(err.Error(), "--insecure-take-by-link") {
			t.Errorf("%s: CheckServing = %v, want --insecure-take-by-link refused", name, err)
		}
		o.Control, o.Page = control.New(nil), func() *browser.Page { return nil }
		if _, err := NewLive(o); err == nil {
			t.Errorf("%s: NewLive accepted --insecure-take-by-link", name)
		}
	}

	ctx := testContext(t)
	ctl, auditLog := auditedControl()
	warnings := &logBuffer{}
	l, _ := startLiveWith(t, ctl, nil, nil, &LiveOptions{InsecureTakeByLink: true, Warnings: warnings})
	c := connect(ctx, t, l)
	if m := awaitType(ctx, t, c, "state"); m.Presence == nil || !m.Presence.Proved || m.Presence.Kind != "insecure-link" {
		t.Fatalf("state = %+v, want proved by insecure-link", m.Presence)
	}
	send(t, c, map[string]string{"type": "take"})
	poll(ctx, t, "the take", func() bool { return ctl.Holder() == "user" })
	if !strings.Contains(warnings.String(), "--insecure-take-by-link") {
		t.Errorf("the take was not warned of: %q", warnings.String())
	}
	if takes := takesIn(auditLog.String()); len(takes) != 1 || takes[0].Proof == nil || takes[0].Proof.Kind != "insecure-link" {
		t.Errorf("takes = %+v, want one with proof insecure-link", takes)
	}
}
