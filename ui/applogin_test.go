package ui

import (
	"net/http"
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
	for _, origin := range []string{"null", "https://sandbox.host.example"} {
		c, r, err := dial(origin, app.Secret)
		if err != nil {
			t.Fatalf("the app's login from %s refused: %v (%v)", origin, err, r)
		}
		next(ctx, t, c, false)
		if ctl.Holder() != spec.ControllerAgent {
			t.Fatal("connecting the app took control")
		}
		c.Close()
	}
	c, _, err := dial("null", app.Secret)
	if err != nil {
		t.Fatal(err)
	}
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
