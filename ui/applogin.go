package ui

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
)

// AppLogin is a live view login for an MCP App: the app inside the User's
// MCP client (a sandboxed frame of the host's origin) connects to the
// websocket with it. Secret is a credential for the User alone: it goes
// only to the app, in a tool result's _meta, to a client that declared
// the MCP Apps extension.
type AppLogin struct {
	Secret  string    // presented as the websocket subprotocol "poppy-viewer." + Secret
	WS      string    // the websocket's URL (no secret in it)
	Origin  string    // the live view's origin, for the app's CSP
	Expires time.Time // if the User never takes the turn
	Offer   string
}

// MintAppLogin gives the MCP App a login for offer (the open one) that
// watches at once and takes control only when the app sends take, which
// it does on the User's click in the app. It ends as an offer link's
// login does (login.go): with the User's turn for that offer, the offer's
// end, or the link time if the turn is never taken. Unlike a link's login
// it may connect from another origin (the host's sandbox, see
// [Live.admitApp]): its secret, never in a URL or cookie, is its only
// credential, so a page without it gains nothing from the allowance.
func (l *Live) MintAppLogin(offer string) (AppLogin, error) {
	base := l.baseURL()
	if base == "" {
		return AppLogin{}, errors.New("minting an app login: not started")
	}
	secret, err := randomToken()
	if err != nil {
		return AppLogin{}, fmt.Errorf("minting an app login: %w", err)
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return AppLogin{}, errors.New("minting an app login: shut down")
	}
	if offer == "" || !l.offerOpen(offer) {
		l.mu.Unlock()
		return AppLogin{}, fmt.Errorf("minting an app login: %w", ErrOfferGone)
	}
	exp := l.now().Add(l.linkTTL)
	l.viewers[tokenHash(secret)] = &viewerSession{offer: offer, expires: exp, app: true}
	l.mu.Unlock()
	l.audit(audit.Entry{Event: audit.EventLink, How: audit.LinkMinted, Offer: offer, Reason: "mcp_app"})
	ws := "ws" + strings.TrimPrefix(base, "http") + l.base + "/ws" // below the page, wherever it is served
	return AppLogin{Secret: secret, WS: ws, Origin: base, Expires: exp, Offer: offer}, nil
}

// admitApp lets a websocket of the app login key in from origin (self is
// the live view's own origin), or says in one line why not. The origin an
// app really connects from is its host's sandbox frame: "null" for an
// opaque sandbox (a srcdoc frame without allow-same-origin), or an origin
// of the host's own (the ext-apps reference host writes the app into a
// frame of its sandbox proxy's origin; Claude's and ChatGPT's sandboxes
// have theirs), which no server can list in advance. So a login belongs
// to the origin it first connects from, and to the live view's own; it
// needs an Origin (a browser always sends one on a websocket handshake);
// and it has one connection at a time, so that while the app is connected
// its secret is worth nothing anywhere else. release ends the connection's
// hold; connected says the handshake became a websocket: a handshake
// that failed binds the login to no origin.
func (l *Live) admitApp(key [32]byte, origin, self string) (release func(connected bool), why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.viewers[key]
	bound := false
	switch {
	case !ok:
		return nil, "This MCP App login has ended."
	case origin == "":
		return nil, "An MCP App login connects only from the app's frame in a browser (the request has no Origin)."
	case v.conns > 0:
		return nil, "This MCP App login is already connected: it has one connection at a time."
	case strings.EqualFold(origin, self):
	case v.origin == "":
		v.origin, bound = origin, true
	case !strings.EqualFold(v.origin, origin):
		return nil, "This MCP App login belongs to the app's frame it first connected from, not to this origin."
	}
	v.conns++
	return func(connected bool) {
		l.mu.Lock()
		v.conns--
		if bound && !connected { // one connection at a time: no other bound it since
			v.origin = ""
		}
		l.mu.Unlock()
	}, ""
}

// refuseApp answers a websocket handshake admitApp refused: 403 and why.
func (l *Live) refuseApp(w http.ResponseWriter, why string) {
	l.log.Debug("live view request refused", "path", l.base+"/ws", "reason", "app-login")
	w.Header().Set("Connection", "close")
	http.Error(w, why, http.StatusForbidden)
}
