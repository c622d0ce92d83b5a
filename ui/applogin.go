package ui

import (
	"errors"
	"fmt"
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
// it may connect from another origin (the host's sandbox): its secret,
// never in a URL or cookie, is its only credential, so a page without it
// gains nothing from the allowance.
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
	ws := "ws" + strings.TrimPrefix(base, "http") + "/live/ws"
	return AppLogin{Secret: secret, WS: ws, Origin: base, Expires: exp, Offer: offer}, nil
}
