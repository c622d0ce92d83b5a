package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/internal/desktop"
	"github.com/poppy-browser/poppy-browser/spec"
)

// testClock is a clock a test moves by hand.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// withLinkAudit records the live view's link lines into logs and runs it
// on clock.
func withLinkAudit(logs *logBuffer, clock *testClock) func(*Live) {
	return func(l *Live) {
		l.auditLog = audit.New(logs, nil)
		l.now = clock.Now
	}
}

// getLink opens u without following anything, as a second device would.
func getLink(ctx context.Context, t *testing.T, u string, cookie *http.Cookie) (int, string, *http.Response) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp
}

// takeLink spends link u as its page's button does (a POST from the
// link's own origin) and returns the status, the viewer's secret and the
// answer.
func takeLink(ctx context.Context, t *testing.T, client *http.Client, u string) (int, string, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	pu, _ := url.Parse(u)
	req.Header.Set("Origin", pu.Scheme+"://"+pu.Host)
	req.Header.Set("X-Poppy-Link", "take")
	req.Header.Set("Content-Type", "application/json")
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", u, err)
	}
	defer resp.Body.Close()
	if ck := resp.Header.Values("Set-Cookie"); len(ck) != 0 {
		t.Errorf("spending a link set cookies %q, want none", ck)
	}
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	secret, _ := out["viewer"].(string)
	return resp.StatusCode, secret, out
}

// dialLogin opens the User channel of l with a login's secret, as the live
// page does (a subprotocol, nothing in the URL).
func dialLogin(ctx context.Context, l *Live, d *websocket.Dialer, secret string) (*websocket.Conn, *http.Response, error) {
	if d == nil {
		d = &websocket.Dialer{}
	}
	dd := *d
	dd.Subprotocols = []string{viewerProtocol, viewerProtocolPrefix + secret}
	scheme, origin := "ws://", "http://"+liveAddr(l)
	if l.remote.secure() {
		scheme, origin = "wss://", "https://"+liveAddr(l)
	}
	return dd.DialContext(ctx, scheme+liveAddr(l)+"/live/ws", http.Header{"Origin": {origin}})
}

// awaitType reads messages until one of type typ.
func awaitType(ctx context.Context, t *testing.T, c *websocket.Conn, typ string) message {
	t.Helper()
	for {
		if m := next(ctx, t, c, false); m.Type == typ {
			return m
		}
	}
}

// TestHandOffLinkOpensOnce: a link minted for an offer shows, in a real
// browser, the offer (Company, reason, expiry) and one button; looking at
// it spends nothing; the button spends it, leaves a clean /live address
// and history, and the User is in control. The login lives in the live
// page's sessionStorage, not in a cookie: a server on another port of
// 127.0.0.1, opened after, gets no cookie. A second open, an expired link
// and a withdrawn offer's link get a page saying so; a login works on its
// own live view only; the audit log records each step without the link.
func TestHandOffLinkOpensOnce(t *testing.T) {
	ctx := testContext(t)
	agentPage := newPage(ctx, t, "http://company.test/form")
	ctl := control.New(nil)
	auditLines := &logBuffer{}
	clock := &testClock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	l, _ := startLive(t, ctl, agentPage, withLinkAudit(auditLines, clock))
	l.company = "Poppy Air"
	offer := ctl.RequestUser("check in yourself", nil)

	link, err := l.MintLink(offer.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := clock.Now().Add(DefaultLinkTTL); !link.Expires.Equal(want) {
		t.Errorf("link expires %v, want %v (ten minutes)", link.Expires, want)
	}
	secrets := []string{link.URL[strings.LastIndex(link.URL, "/")+1:], l.token.Reveal()}

	viewer := chromium.NewPage(t)
	if _, err := viewer.Navigate(ctx, link.URL); err != nil {
		t.Fatal(err)
	}
	shown := evalString(ctx, t, viewer, `function(){ return document.body.innerText }`)
	for _, want := range []string{"Poppy Air", "check in yourself", "12:10 UTC", "Take control"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the link's page lacks %q:\n%s", want, shown)
		}
	}
	if n := evalString(ctx, t, viewer, `function(){ return String(document.querySelectorAll("button").length) }`); n != "1" {
		t.Errorf("the link's page has %s buttons, want one", n)
	}
	// Looking (here, and a preview fetching it twice) spent nothing.
	for i := range 2 {
		if status, body, _ := getLink(ctx, t, link.URL, nil); status != http.StatusOK || !strings.Contains(body, "check in yourself") {
			t.Errorf("preview %d = %d, want the offer's page", i+1, status)
		}
	}
	if ctl.Status().Viewers != 0 || ctl.Holder() != spec.ControllerAgent {
		t.Error("opening the link's page connected a viewer or took control")
	}

	evalString(ctx, t, viewer, `function(){ document.getElementById("go").click(); return "" }`)
	clean := "http://" + liveAddr(l) + "/live"
	poll(ctx, t, "the User in control after the link's one button, at the clean /live address", func() bool {
		return ctl.Holder() == spec.ControllerUser &&
			evalString(ctx, t, viewer, `function(){ return location.href + " " + document.getElementById("hand_back").hidden }`) == clean+" false"
	})
	if h := evalString(ctx, t, viewer, `function(){ return String(history.length) + document.documentElement.outerHTML + document.cookie }`); containsAny(h, secrets) || !strings.HasPrefix(h, "2<") {
		// 2: the new tab's about:blank and /live; the link's page replaced itself.
		t.Errorf("the viewer's history, page or cookies hold the link (history.length and page: %.80q)", h)
	}
	login := evalString(ctx, t, viewer, `function(){ return sessionStorage.getItem("poppy_viewer") || "" }`)
	if login == "" {
		t.Fatal("no login in the live page's sessionStorage")
	}
	secrets = append(secrets, login)
	if n := ctl.Status().Viewers; n != 1 {
		t.Errorf("control counts %d viewers with the linked viewer connected, want 1 (browser_control_status's viewer_connected)", n)
	}

	// Another program on another port of 127.0.0.1, which the User's
	// browser reaches after the login (a link on some page), gets no
	// credential.
	var gotCookie atomic.Value
	gotCookie.Store("unset")
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotCookie.Store(r.Header.Get("Cookie"))
		fmt.Fprint(w, "<!doctype html><title>other program</title>")
	}))
	defer other.Close()
	if _, err := viewer.Navigate(ctx, other.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if c := gotCookie.Load().(string); c != "" {
		t.Errorf("a server on another port of 127.0.0.1 received %q, want no cookie", c)
	}
	if _, err := viewer.Navigate(ctx, clean); err != nil { // back, as the User would
		t.Fatal(err)
	}

	// A second open, anywhere, is refused with a page that says so.
	status, body, _ := getLink(ctx, t, link.URL, nil)
	if status != http.StatusGone || !strings.Contains(body, "already been used") {
		t.Errorf("second open = %d %q, want 410 and a page saying it was used", status, body)
	}
	if status, _, out := takeLink(ctx, t, nil, link.URL); status != http.StatusGone || !strings.Contains(fmt.Sprint(out["error"]), "already been used") {
		t.Errorf("second take = %d %v, want 410 saying it was used", status, out)
	}
	second := chromium.NewPage(t)
	if _, err := second.Navigate(ctx, link.URL); err != nil {
		t.Fatal(err)
	}
	if why := evalString(ctx, t, second, `function(){ const e = document.getElementById("why"); return e ? e.textContent : document.body.innerText }`); !strings.Contains(why, "already been used") {
		t.Errorf("second open in a browser reads %q, want it says the link was used", why)
	}

	// Hand back: the offer is over, and so is a link minted for it.
	if err := ctl.User().HandBack(ctx); err != nil {
		t.Fatal(err)
	}
	offer = ctl.RequestUser("pick a seat", nil)
	expiring, err := l.MintLink(offer.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	clock.Add(DefaultLinkTTL)
	if status, body, _ := getLink(ctx, t, expiring.URL, nil); status != http.StatusGone || !strings.Contains(body, "expired") {
		t.Errorf("expired link = %d %q, want 410 and a page saying it expired", status, body)
	}
	withdrawn, err := l.MintLink(offer.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	ctl.RequestUser("a newer offer", nil)
	poll(ctx, t, "the replaced offer's link revoked in the audit log", func() bool {
		return strings.Contains(auditLines.String(), `"how":"revoked"`)
	})
	if status, body, _ := getLink(ctx, t, withdrawn.URL, nil); status != http.StatusGone || !strings.Contains(body, "offer ended") {
		t.Errorf("withdrawn offer's link = %d %q, want 410 and a page saying the offer ended", status, body)
	}
	if _, err := l.MintLink(offer.ID, false); err == nil {
		t.Error("minting a link for a replaced offer worked, want ErrOfferGone")
	}

	// A login: good on its own live view's websocket, not on another's.
	fresh, err := l.MintLink("", false)
	if err != nil {
		t.Fatal(err)
	}
	status, freshLogin, _ := takeLink(ctx, t, nil, fresh.URL)
	if status != http.StatusOK || freshLogin == "" {
		t.Fatalf("taking a fresh link = %d, want 200 and a login", status)
	}
	secrets = append(secrets, freshLogin, fresh.URL[strings.LastIndex(fresh.URL, "/")+1:])
	c, _, err := dialLogin(ctx, l, nil, freshLogin)
	if err != nil {
		t.Fatalf("the login on its own live view: %v", err)
	}
	c.Close()
	otherLive, _ := startLive(t, control.New(nil), agentPage, nil)
	if c, r, err := dialLogin(ctx, otherLive, nil, freshLogin); err == nil || r == nil || r.StatusCode != http.StatusForbidden {
		if c != nil {
			c.Close()
		}
		t.Errorf("another live view's websocket with this login = %v %v, want 403", r, err)
	}

	lines := auditLines.String()
	for _, want := range []string{`"how":"minted"`, `"how":"opened"`, `"reason":"used"`, `"reason":"expired"`, "HeadlessChrome"} {
		if !strings.Contains(lines, want) {
			t.Errorf("audit log lacks %s:\n%s", want, lines)
		}
	}
	if containsAny(lines, secrets) {
		t.Errorf("audit log holds a link, token or login:\n%s", lines)
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if sub != "" && strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestLiveLinkWithoutAnOffer: the live-link command's request (the
// per-run token from the URL file) mints a link that opens once; a login
// cannot mint one.
func TestLiveLinkWithoutAnOffer(t *testing.T) {
	ctx := testContext(t)
	l, _ := startLive(t, control.New(nil), nil, nil)
	file := filepath.Join(t.TempDir(), "live-url")
	if err := l.WriteURLFile(file); err != nil {
		t.Fatal(err)
	}
	link, exp, err := desktop.MintLiveLink(ctx, file, false, nil)
	if err != nil || !strings.Contains(link, "/live/link/") || time.Until(exp) <= 0 {
		t.Fatalf("MintLiveLink = %q %v %v", link, exp, err)
	}
	if status, body, _ := getLink(ctx, t, link, nil); status != http.StatusOK || !strings.Contains(body, "Open the live view") {
		t.Fatalf("the minted link = %d, want 200 and its page", status)
	}
	status, login, _ := takeLink(ctx, t, nil, link)
	if status != http.StatusOK || login == "" {
		t.Fatalf("taking the minted link = %d, want 200 and a login", status)
	}
	for _, q := range []string{"", "?token=" + login} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+liveAddr(l)+"/live/links"+q, nil)
		req.Header.Set("Sec-WebSocket-Protocol", viewerProtocol+", "+viewerProtocolPrefix+login)
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusForbidden {
			t.Errorf("a login minting a link (%q) = %d, want 403", q, r.StatusCode)
		}
	}
	if status, _, _ := getLink(ctx, t, link, nil); status != http.StatusGone {
		t.Errorf("open after it was taken = %d, want 410", status)
	}
	if status, _, _ := takeLink(ctx, t, nil, link); status != http.StatusGone {
		t.Errorf("second take = %d, want 410", status)
	}
}
