package ui

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestHandOffLinkOpensOnce: a link minted for an offer opens the live view
// once in a real browser, leaves a clean address, lets the User take
// control; a second open, an expired link and a withdrawn offer's link get
// a page saying so; the viewer cookie works on its own live view only; the
// audit log records each step without the link.
func TestHandOffLinkOpensOnce(t *testing.T) {
	ctx := testContext(t)
	agentPage := newPage(ctx, t, "http://company.test/form")
	ctl := control.New(nil)
	auditLines := &logBuffer{}
	clock := &testClock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	l, _ := startLive(t, ctl, agentPage, withLinkAudit(auditLines, clock))
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
	clean := "http://" + liveAddr(l) + "/live"
	poll(ctx, t, "the viewer at the clean /live address, connected", func() bool {
		return evalString(ctx, t, viewer, `function(){ return location.href + " " + document.getElementById("take").disabled }`) == clean+" false"
	})
	if h := evalString(ctx, t, viewer, `function(){ return String(history.length) + document.documentElement.outerHTML }`); containsAny(h, secrets) || !strings.HasPrefix(h, "2<") {
		// 2: the new tab's about:blank and /live; the link's page replaced itself.
		t.Errorf("the viewer's history or page holds the link (history.length and page: %.80q)", h)
	}
	if n := ctl.Status().Viewers; n != 1 {
		t.Errorf("control counts %d viewers with the linked viewer connected, want 1 (browser_control_status's viewer_connected)", n)
	}
	evalString(ctx, t, viewer, `function(){ document.getElementById("take").click(); return "" }`)
	poll(ctx, t, "the User holding control after Take control in the linked viewer", func() bool {
		return ctl.Holder() == spec.ControllerUser
	})

	// A second open, anywhere, is refused with a page that says so.
	status, body, _ := getLink(ctx, t, link.URL, nil)
	if status != http.StatusGone || !strings.Contains(body, "already been used") {
		t.Errorf("second open = %d %q, want 410 and a page saying it was used", status, body)
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

	// The viewer cookie: good on its own live view, not on another's.
	fresh, err := l.MintLink("", false)
	if err != nil {
		t.Fatal(err)
	}
	_, _, resp := getLink(ctx, t, fresh.URL, nil)
	var ck *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == l.cookieName {
			ck = c
		}
	}
	if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/live" {
		t.Fatalf("viewer cookie = %+v, want HttpOnly, SameSite=Strict, Path=/live", ck)
	}
	secrets = append(secrets, ck.Value, fresh.URL[strings.LastIndex(fresh.URL, "/")+1:])
	if status, _, _ := getLink(ctx, t, clean, ck); status != http.StatusOK {
		t.Errorf("/live with the viewer cookie = %d, want 200", status)
	}
	other, _ := startLive(t, control.New(nil), agentPage, nil)
	forged := &http.Cookie{Name: other.cookieName, Value: ck.Value}
	if status, _, _ := getLink(ctx, t, "http://"+liveAddr(other)+"/live", forged); status != http.StatusForbidden {
		t.Errorf("another session's /live with this viewer cookie = %d, want 403", status)
	}

	lines := auditLines.String()
	for _, want := range []string{`"how":"minted"`, `"how":"opened"`, `"reason":"used"`, `"reason":"expired"`, "HeadlessChrome"} {
		if !strings.Contains(lines, want) {
			t.Errorf("audit log lacks %s:\n%s", want, lines)
		}
	}
	if containsAny(lines, secrets) {
		t.Errorf("audit log holds a link, token or cookie value:\n%s", lines)
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
// per-run token from the URL file) mints a link that opens once; a viewer
// cookie cannot mint one.
func TestLiveLinkWithoutAnOffer(t *testing.T) {
	ctx := testContext(t)
	l, _ := startLive(t, control.New(nil), nil, nil)
	file := filepath.Join(t.TempDir(), "live-url")
	if err := l.WriteURLFile(file); err != nil {
		t.Fatal(err)
	}
	link, exp, err := desktop.MintLiveLink(ctx, file, false)
	if err != nil || !strings.Contains(link, "/live/link/") || time.Until(exp) <= 0 {
		t.Fatalf("MintLiveLink = %q %v %v", link, exp, err)
	}
	status, _, resp := getLink(ctx, t, link, nil)
	if status != http.StatusOK {
		t.Fatalf("the minted link = %d, want 200", status)
	}
	var ck *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == l.cookieName {
			ck = c
		}
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+liveAddr(l)+"/live/links", nil)
	req.AddCookie(ck)
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusForbidden {
		t.Errorf("a viewer cookie minting a link = %d, want 403", r.StatusCode)
	}
	if status, _, _ := getLink(ctx, t, link, nil); status != http.StatusGone {
		t.Errorf("second open = %d, want 410", status)
	}
}
