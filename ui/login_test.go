package ui

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestLinkPreviewSpendsNothing: with a real HTTP client, a link's page is
// fetched twice (a chat's unfurler, a scanner) and the link still works;
// a POST that does not come from the link's own page (no Origin, another
// Origin, a cross-site fetch, no X-Poppy-Link) is refused and spends
// nothing; the right POST spends it, once.
func TestLinkPreviewSpendsNothing(t *testing.T) {
	ctx := testContext(t)
	ctl := control.New(nil)
	l, _ := startLive(t, ctl, nil, nil)
	l.company = "Poppy Air"
	offer := ctl.RequestUser("pay the fare", nil)
	link, err := l.MintLink(offer.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		status, body, resp := getLink(ctx, t, link.URL, nil)
		if status != http.StatusOK || !strings.Contains(body, "pay the fare") || !strings.Contains(body, "Poppy Air") ||
			strings.Count(body, "<button") != 1 || len(resp.Cookies()) != 0 {
			t.Fatalf("GET %d of the link = %d, cookies %v, want the offer's page with one button, no cookie:\n%s", i+1, status, resp.Cookies(), body)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("the link page's CSP %q", csp)
		}
	}
	self := "http://" + liveAddr(l)
	for _, tc := range []struct {
		name    string
		headers map[string]string
	}{
		{name: "no Origin", headers: map[string]string{"X-Poppy-Link": "take"}},
		{name: "another Origin", headers: map[string]string{"Origin": "http://partner.test", "X-Poppy-Link": "take"}},
		{name: "another port's Origin", headers: map[string]string{"Origin": "http://127.0.0.1:1", "X-Poppy-Link": "take"}},
		{name: "a null Origin", headers: map[string]string{"Origin": "null", "X-Poppy-Link": "take"}},
		{name: "a cross-site fetch", headers: map[string]string{"Origin": self, "X-Poppy-Link": "take", "Sec-Fetch-Site": "cross-site"}},
		{name: "a plain form", headers: map[string]string{"Origin": self, "Content-Type": "application/x-www-form-urlencoded"}},
	} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, link.URL, strings.NewReader("{}"))
		for k, v := range tc.headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST with %s = %d, want 403", tc.name, resp.StatusCode)
		}
	}
	status, login, out := takeLink(ctx, t, nil, link.URL)
	if status != http.StatusOK || login == "" || out["take"] != true {
		t.Fatalf("the link's POST = %d %v, want 200, a login and take", status, out)
	}
	if status, _, _ := takeLink(ctx, t, nil, link.URL); status != http.StatusGone {
		t.Errorf("a second POST = %d, want 410", status)
	}
	if status, _, _ := getLink(ctx, t, link.URL, nil); status != http.StatusGone {
		t.Errorf("a GET after the POST = %d, want 410", status)
	}
}

// refusedLogin reports whether l refuses a websocket with login.
func refusedLogin(ctx context.Context, l *Live, login string) bool {
	c, r, err := dialLogin(ctx, l, nil, login)
	if err == nil {
		c.Close()
		return false
	}
	return r != nil && r.StatusCode == http.StatusForbidden
}

// TestLoginEndsWithItsTurn: an offer's login takes control once; when the
// User hands back it ends (its viewer hears so and is closed) and cannot
// take control later, even with a new offer open; a declined offer's
// login ends; an offer's login never used for a take ends at the link's
// expiry; a live-link login ends after the link TTL unless the User holds
// control through it, and then with that turn.
func TestLoginEndsWithItsTurn(t *testing.T) {
	ctx := testContext(t)
	ctl := control.New(nil)
	clock := &testClock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	l, _ := startLive(t, ctl, newPage(ctx, t, "http://company.test/form"), withLinkAudit(&logBuffer{}, clock))
	spend := func(offer string) string {
		t.Helper()
		link, err := l.MintLink(offer, false)
		if err != nil {
			t.Fatal(err)
		}
		status, login, _ := takeLink(ctx, t, nil, link.URL)
		if status != http.StatusOK || login == "" {
			t.Fatalf("spending a link = %d", status)
		}
		return login
	}
	connectLogin := func(login string) *websocket.Conn {
		t.Helper()
		c, r, err := dialLogin(ctx, l, nil, login)
		if err != nil {
			t.Fatalf("a live login refused: %v (%v)", err, r)
		}
		t.Cleanup(func() { c.Close() })
		next(ctx, t, c, false)
		return c
	}

	// Handed back: over, for good.
	offer := ctl.RequestUser("check in yourself", nil)
	login := spend(offer.ID)
	c := connectLogin(login)
	send(t, c, map[string]string{"type": "take"})
	poll(ctx, t, "the User's take through the offer's login", func() bool { return ctl.Holder() == spec.ControllerUser })
	send(t, c, map[string]string{"type": "hand_back"})
	if m := awaitType(ctx, t, c, "ended"); m.Message == "" {
		t.Error("the ended message says nothing")
	}
	if _, _, err := c.ReadMessage(); err == nil {
		t.Error("the viewer's websocket stayed open after its login ended")
	}
	ctl.RequestUser("one more step", nil)
	if !refusedLogin(ctx, l, login) {
		t.Error("a login from an offer handed back connected again, with a new offer open")
	}
	if ctl.Holder() != spec.ControllerAgent {
		t.Error("an ended login took control")
	}

	// Declined: over.
	offer = ctl.RequestUser("pick a seat", nil)
	login = spend(offer.ID)
	c = connectLogin(login)
	send(t, c, map[string]string{"type": "cancel", "text": "not now"})
	awaitType(ctx, t, c, "ended")
	if !refusedLogin(ctx, l, login) {
		t.Error("a declined offer's login connected again")
	}

	// Never taken: over at the link's expiry.
	offer = ctl.RequestUser("pay", nil)
	login = spend(offer.ID)
	c = connectLogin(login)
	clock.Add(DefaultLinkTTL)
	awaitType(ctx, t, c, "ended") // the sweep sees the clock
	if !refusedLogin(ctx, l, login) {
		t.Error("an expired offer login connected again")
	}
	if err := ctl.User().Cancel(ctx); err != nil { // declines "pay"
		t.Fatal(err)
	}

	// A live-link login: the TTL, unless it holds the User's turn.
	idle := spend("")
	ci := connectLogin(idle)
	taker := spend("")
	ct := connectLogin(taker)
	send(t, ct, map[string]string{"type": "take"})
	poll(ctx, t, "the User's take through a live-link login", func() bool { return ctl.Holder() == spec.ControllerUser })
	clock.Add(DefaultLinkTTL)
	awaitType(ctx, t, ci, "ended")
	if !refusedLogin(ctx, l, idle) {
		t.Error("a live-link login connected after its TTL")
	}
	send(t, ct, map[string]any{"type": "locate", "selector": "#name"})
	if m := awaitType(ctx, t, ct, "locate"); m.Selector != "#name" {
		t.Errorf("the controlling login after the TTL = %+v, want it still works during its turn", m)
	}
	send(t, ct, map[string]string{"type": "hand_back"})
	awaitType(ctx, t, ct, "ended")
	if !refusedLogin(ctx, l, taker) {
		t.Error("a live-link login connected again after its turn ended: a second take needs a new link")
	}
}

// TestSignedIdentity: with the operator's signed identity configured
// (--live-identity-header), the live view answers only requests carrying
// a JWT of the session's User verified against the identity provider's
// JWKS: real Chromium through a reverse proxy that adds a freshly signed
// identity (as an authenticating proxy would) opens a link and takes
// control; the same browser going around the proxy, and requests with a
// token of another User, an expired one, an unsigned one or two of them,
// get 403 and one line saying which check failed, never the token.
func TestSignedIdentity(t *testing.T) {
	ctx := testContext(t)
	ctl := control.New(nil)
	idp := newTestIDP(t)
	var backend atomic.Pointer[url.URL]
	certFile, keyFile := selfSignedFiles(t)
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewUnstartedServer(&httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(backend.Load())
		pr.Out.Host = pr.In.Host
		// Never the client's own: the proxy authenticated the User and
		// signs who they are for each request.
		pr.Out.Header.Set("X-Poppy-Identity", idp.sign("rsa-1", goodClaims(time.Now())))
	}})
	proxy.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	proxy.StartTLS()
	defer proxy.Close()
	l, _ := startLive(t, ctl, newPage(ctx, t, "http://company.test/form"), func(l *Live) {
		r, err := newRemote("127.0.0.1:0", &LiveOptions{PublicURL: proxy.URL})
		if err != nil {
			t.Fatal(err)
		}
		l.remote = r
		l.identity = idp.verifier(t, nil)
	})
	backend.Store(&url.URL{Scheme: "http", Host: liveAddr(l)})
	offer := ctl.RequestUser("check in yourself", nil)
	link, err := l.MintLink(offer.ID, false)
	if err != nil {
		t.Fatal(err)
	}

	viewer := chromium.NewPage(t)
	if _, err := viewer.Navigate(ctx, link.URL); err != nil {
		t.Fatal(err)
	}
	evalString(ctx, t, viewer, `function(){ document.getElementById("go").click(); return "" }`)
	poll(ctx, t, "the User in control through the authenticating proxy", func() bool { return ctl.Holder() == spec.ControllerUser })

	// Around the proxy: refused, with the reason, for the page, the
	// websocket and the links.
	direct := "http://" + liveAddr(l)
	around := chromium.NewPage(t)
	if _, err := around.Navigate(ctx, direct+"/live"); err != nil {
		t.Fatal(err)
	}
	if body := evalString(ctx, t, around, `function(){ return document.body.innerText }`); !strings.Contains(body, "--live-identity-header") || !strings.Contains(body, "no X-Poppy-Identity header") {
		t.Errorf("the browser around the proxy reads %q, want the one-line reason", body)
	}
	now := time.Now()
	mallory := goodClaims(now)
	mallory.Subject = "mallory@example.com"
	expired := goodClaims(now.Add(-time.Hour))
	good := idp.sign("rsa-1", goodClaims(now))
	for _, tc := range []struct {
		name, method, path string
		values             []string
		why                string
	}{
		{"page, no identity", "GET", "/live", nil, "no X-Poppy-Identity"},
		{"page, another user's identity", "GET", "/live", []string{idp.sign("rsa-1", mallory)}, "another user"},
		{"page, an expired identity", "GET", "/live", []string{idp.sign("rsa-1", expired)}, "expired"},
		{"page, alg none", "GET", "/live", []string{unsigned(goodClaims(now))}, "allowed algorithm"},
		{"page, two identities", "GET", "/live", []string{good, good}, "one signed identity"},
		{"link", "GET", strings.TrimPrefix(link.URL, proxy.URL), nil, "no X-Poppy-Identity"},
		{"mint", "POST", "/live/links?token=" + l.token.Reveal(), []string{idp.sign("rsa-1", mallory)}, "another user"},
		{"websocket", "GET", "/live/ws?token=" + l.token.Reveal(), []string{"garbage"}, "allowed algorithm"},
	} {
		req, _ := http.NewRequestWithContext(ctx, tc.method, direct+tc.path, nil)
		req.Host = strings.TrimPrefix(proxy.URL, "https://")
		for _, v := range tc.values {
			req.Header.Add("X-Poppy-Identity", v)
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || strings.Count(string(body), "\n") != 1 ||
			!strings.Contains(string(body), "--live-identity-header") || !strings.Contains(string(body), tc.why) {
			t.Errorf("%s around the proxy = %d %q, want 403 and one line about %q", tc.name, resp.StatusCode, body, tc.why)
		}
		for _, v := range tc.values {
			if len(v) > 20 && strings.Contains(string(body), v[:20]) {
				t.Errorf("%s: the refusal echoes the token", tc.name)
			}
		}
	}
}

// TestSlowConnectionsClosed: a connection that sends nothing, or half a
// request, is closed within the header timeout; a refused request's
// connection is closed at once; an idle keep-alive connection is closed
// after the idle timeout.
func TestSlowConnectionsClosed(t *testing.T) {
	ctx := testContext(t)
	const bound = 400 * time.Millisecond
	l, _ := startLive(t, control.New(nil), nil, func(l *Live) { l.headerTimeout, l.idleTimeout = bound, bound })
	addr := liveAddr(l)
	closedWithin := func(name, send string, within time.Duration) {
		t.Helper()
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		start := time.Now()
		if send != "" {
			if _, err := io.WriteString(conn, send); err != nil {
				t.Fatal(err)
			}
		}
		_ = conn.SetReadDeadline(time.Now().Add(within + 5*time.Second))
		_, err = io.Copy(io.Discard, conn)
		if took := time.Since(start); err != nil || took > within+2*time.Second {
			t.Errorf("%s: closed after %s (%v), want within %s", name, took, err, within)
		}
	}
	closedWithin("nothing sent", "", bound)
	closedWithin("half a request", "GET /live HTTP/1.1\r\nHost: "+addr+"\r\n", bound)
	closedWithin("a refused request", "GET /live/links HTTP/1.1\r\nHost: "+addr+"\r\n\r\n", 0)

	// A served request, then idle: closed after the idle timeout.
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /live HTTP/1.1\r\nHost: "+addr+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the page on a raw connection: %v %v", resp, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	start := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(bound + 5*time.Second))
	if _, err := br.ReadByte(); err != io.EOF || time.Since(start) > bound+2*time.Second {
		t.Errorf("idle keep-alive: %v after %s, want closed (EOF) within %s", err, time.Since(start), bound)
	}
}

// TestViewerControlsOnlyByTake: after the viewer in control leaves, another
// viewer's mouse, touch and screen size do nothing: it does not become
// the viewer in control and the pages keep their size, until it takes
// control there itself.
func TestViewerControlsOnlyByTake(t *testing.T) {
	ctx := testContext(t)
	p := newPage(ctx, t, "http://company.test/form")
	ctl := controlOn(p)
	l, _ := startLive(t, ctl, p, nil)
	laptop, phone := connect(ctx, t, l), connect(ctx, t, l)
	next(ctx, t, laptop, false)
	next(ctx, t, phone, false)
	send(t, laptop, map[string]string{"type": "take"})
	if m := awaitType(ctx, t, phone, "state"); m.Controller != "user" || m.Viewer != "another" {
		t.Fatalf("the phone's state after the laptop's take = %+v", m)
	}
	laptop.Close()
	poll(ctx, t, "the laptop gone", func() bool { return l.Clients() == 1 })

	send(t, phone, map[string]any{"type": "mouse", "event": "move", "x": 10, "y": 10})
	send(t, phone, map[string]any{"type": "touch", "event": "start", "points": []map[string]any{{"x": 10, "y": 10, "id": 0}}})
	send(t, phone, map[string]any{"type": "viewer", "width": 390, "height": 700, "scale": 3, "mobile": true, "touch": true})
	send(t, phone, map[string]any{"type": "locate", "selector": "#name"})
	if m := awaitType(ctx, t, phone, "error"); m.Message != "you do not hold control" {
		t.Errorf("locate from the phone after its input = %+v, want it does not hold control", m)
	}
	if st := ctl.Status(); st.Controller != spec.ControllerUser || st.Device != nil {
		t.Errorf("after the phone's moves and size: holder %s, device %+v; want the User, pages at their size", st.Controller, st.Device)
	}
	if l.viewerFor(&client{}, ctl.Status()) != "" {
		t.Error("a viewer is in control after moves alone")
	}
	send(t, phone, map[string]string{"type": "take"})
	poll(ctx, t, "the phone in control after its take, the pages at its size", func() bool {
		st := ctl.Status()
		return st.Device != nil && st.Device.Width == 390
	})
}

// TestEndedIsTheLastWord: a viewer told its login ended hears nothing
// after it, though the page keeps painting and control keeps changing
// while its connection closes (a state or picture after "ended" would
// show a view that is over as live).
func TestEndedIsTheLastWord(t *testing.T) {
	ctx := testContext(t)
	ctl := control.New(nil)
	clock := &testClock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	l, _ := startLive(t, ctl, newPage(ctx, t, "http://company.test/form"), withLinkAudit(&logBuffer{}, clock))
	for round := range 20 {
		link, err := l.MintLink("", false)
		if err != nil {
			t.Fatal(err)
		}
		status, login, _ := takeLink(ctx, t, nil, link.URL)
		if status != http.StatusOK {
			t.Fatalf("spending a live link = %d", status)
		}
		conn, r, err := dialLogin(ctx, l, nil, login)
		if err != nil {
			t.Fatalf("a live login refused: %v (%v)", err, r)
		}
		next(ctx, t, conn, false)
		var c *client
		l.mu.Lock()
		for k := range l.clients {
			if k.hasLogin && !k.ending.Load() {
				c = k
			}
		}
		l.mu.Unlock()
		stop := make(chan struct{})
		go func() { // the page and control, carrying on
			for {
				select {
				case <-stop:
					return
				default:
				}
				c.queue(l.stateFor(c))
				c.pushFrame([]byte(`{"type":"frame"}`))
			}
		}()
		l.endLogin(c, endedMsg{Type: "ended", Message: endedWords})
		var last string
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		for {
			var m message
			if err := conn.ReadJSON(&m); err != nil {
				break
			}
			last = m.Type
		}
		close(stop)
		conn.Close()
		if last != "ended" {
			t.Fatalf("round %d: the last message before the close was %q, want ended", round, last)
		}
	}
}
