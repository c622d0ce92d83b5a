package ui

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestAppLoginFromAnotherOrigin: an MCP App's login connects from the
// host's sandbox (Origin "null" or the host's), watches, takes control
// only when it sends take, and ends with the turn; a link's login and the
// per-run token are still refused from another origin; no login is
// minted for an offer that is not open.
func TestAppLoginFromAnotherOrigin(t *testing.T) {
	ctx := testContext(t)
	ctl := control.New(nil)
	l, _ := startLive(t, ctl, newPage(ctx, t, "http://company.test/form"), nil)
	if _, err := l.MintAppLogin("offer-9"); err == nil {
		t.Error("an app login minted for an offer that is not open")
	}
	offer := ctl.RequestUser("check in yourself", nil)
	app, err := l.MintAppLogin(offer.ID)
	if err != nil {
		t.Fatal(err)
	}
	if app.WS != "ws://"+liveAddr(l)+"/live/ws" || app.Origin != "http://"+liveAddr(l) {
		t.Errorf("app login %+v", app)
	}
	dial := func(origin, secret string) (*websocket.Conn, *http.Response, error) {
		d := websocket.Dialer{Subprotocols: []string{viewerProtocol, viewerProtocolPrefix + secret}}
		return d.DialContext(ctx, app.WS, http.Header{"Origin": {origin}})
	}
	link, err := l.MintLink(offer.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	_, linkLogin, _ := takeLink(ctx, t, nil, link.URL)
	if c, _, err := dial("null", linkLogin); err == nil {
		c.Close()
		t.Error("a link's login connected from another origin")
	}
	if c, _, err := dial("null", "not-a-login"); err == nil {
		c.Close()
		t.Error("a made-up login connected from another origin")
	}
	// A host's sandbox is opaque ("null") or an origin of the host's own;
	// each app login connects from the frame it was given to.
	for _, origin := range []string{"https://sandbox.host.example", "null"} {
		login := app
		if origin != "null" {
			if login, err = l.MintAppLogin(offer.ID); err != nil {
				t.Fatal(err)
			}
		}
		c, r, err := dial(origin, login.Secret)
		if err != nil {
			t.Fatalf("the app's login from %s refused: %v (%v)", origin, err, r)
		}
		next(ctx, t, c, false)
		if ctl.Holder() != spec.ControllerAgent {
			t.Fatal("connecting the app took control")
		}
		c.Close()
	}
	// The app connects again from its frame once its last connection
	// closed (the server sees the close soon after).
	var c *websocket.Conn
	poll(ctx, t, "the app's login to connect again", func() bool {
		c, _, err = dial("null", app.Secret)
		return err == nil
	})
	defer c.Close()
	send(t, c, map[string]string{"type": "take"})
	poll(ctx, t, "the User's take in the app", func() bool { return ctl.Holder() == spec.ControllerUser })
	send(t, c, map[string]string{"type": "hand_back", "text": "done"})
	awaitType(ctx, t, c, "ended")
	if c2, _, err := dial("null", app.Secret); err == nil {
		c2.Close()
		t.Error("the app's login still connects after its turn")
	}
}

// TestAppLoginOneFrame: an MCP App's login belongs to the frame it first
// connected from: another origin, or no Origin at all (not a browser), is
// refused with 403 and one line saying why, and so is a second connection
// while the app's is open; the live view's own origin stays allowed.
func TestAppLoginOneFrame(t *testing.T) {
	ctx, l, app := appLoginForAnOffer(t)
	dial := func(origin string) (*websocket.Conn, *http.Response, error) {
		d := websocket.Dialer{Subprotocols: []string{viewerProtocol, viewerProtocolPrefix + app.Secret}}
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		return d.DialContext(ctx, app.WS, h)
	}
	refused := func(origin, why string) {
		t.Helper()
		c, r, err := dial(origin)
		if err == nil {
			c.Close()
			t.Errorf("the app's login connected from %q %s", origin, why)
			return
		}
		if r == nil || r.StatusCode != http.StatusForbidden {
			t.Errorf("the app's login from %q %s: %v %v, want 403", origin, why, err, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		if line := strings.TrimSpace(string(b)); line == "" || strings.Contains(line, "\n") || strings.Contains(line, app.Secret) {
			t.Errorf("the refusal from %q %s says %q, want one line without the secret", origin, why, b)
		}
	}
	refused("", "without an Origin (not a browser)")
	c, r, err := dial("https://sandbox.host.example")
	if err != nil {
		t.Fatalf("the app's login from its frame refused: %v (%v)", err, r)
	}
	next(ctx, t, c, false)
	refused("https://sandbox.host.example", "a second time while connected")
	refused("https://evil.example", "from another origin while connected")
	c.Close()
	// Closed: its own frame connects again, another origin never does.
	poll(ctx, t, "the app's login to connect again from its frame", func() bool {
		c, _, err = dial("https://sandbox.host.example")
		return err == nil
	})
	c.Close()
	refused("https://evil.example", "from another origin")
	refused("null", "from an opaque origin it was not given to")
	// The live view's own origin is the live view's own page.
	poll(ctx, t, "the app's login to connect from the live view's origin", func() bool {
		c, _, err = dial("http://" + liveAddr(l))
		return err == nil
	})
	c.Close()
}

// TestAppLoginFailedHandshake: a handshake that never becomes a
// websocket (here a plain GET with the login and an Origin) is not a
// connection: the login is not bound to its origin, and the app's own
// frame connects afterwards.
func TestAppLoginFailedHandshake(t *testing.T) {
	ctx, _, app := appLoginForAnOffer(t)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http"+strings.TrimPrefix(app.WS, "ws"), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", "https://stray.example")
	req.Header.Set("Sec-WebSocket-Protocol", viewerProtocol+", "+viewerProtocolPrefix+app.Secret)
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode == http.StatusSwitchingProtocols {
		t.Fatalf("a plain GET was upgraded")
	}
	d := websocket.Dialer{Subprotocols: []string{viewerProtocol, viewerProtocolPrefix + app.Secret}}
	h := http.Header{}
	h.Set("Origin", "https://sandbox.host.example")
	var c *websocket.Conn
	poll(ctx, t, "the app's frame to connect after a failed handshake from another origin", func() bool {
		c, _, err = d.DialContext(ctx, app.WS, h)
		return err == nil
	})
	c.Close()
}

// appLoginForAnOffer starts a live view on a page, opens an offer and
// mints the MCP App's login for it.
func appLoginForAnOffer(t *testing.T) (context.Context, *Live, AppLogin) {
	t.Helper()
	ctx := testContext(t)
	ctl := control.New(nil)
	l, _ := startLive(t, ctl, newPage(ctx, t, "http://company.test/form"), nil)
	offer := ctl.RequestUser("check in yourself", nil)
	app, err := l.MintAppLogin(offer.ID)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, l, app
}
