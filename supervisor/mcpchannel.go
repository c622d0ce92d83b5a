package supervisor

import (
	"context"
	"errors"
	"net/url"
	"time"
)

// The User's channels through an MCP client (package mcpserver finds
// these methods on the Runtime it is given): the offer's control link for
// a URL elicitation to a client that declared one, the Company's name for
// its message, and the User's decline in that client.

// OfferLinkURL is [Session.OfferLink]'s URL and expiry: the same
// single-use link every channel of the User gives for offer id. A secret
// for the User alone: only a URL elicitation carries it to an MCP client.
func (ss *Session) OfferLinkURL(id string) (string, time.Time, error) {
	l, err := ss.OfferLink(id)
	if err != nil {
		return "", time.Time{}, err
	}
	return l.URL, l.Expires, nil
}

// CompanyName is the name of the Company whose Session this is, for the
// User to read.
func (ss *Session) CompanyName() string { return ss.srv.companyName() }

// DeclineOffer declines the open offer id for the User, who said no to it
// in their MCP client (a URL elicitation's decline).
func (ss *Session) DeclineOffer(ctx context.Context, id, message string) error {
	return ss.control.User().DeclineOffer(ctx, id, message)
}

// OfferChannels names the channels by which the Session itself brings each
// offer to the User: "on_offer" with --on-offer.
func (ss *Session) OfferChannels() []string {
	if ss.srv.opts.Offers.Command != "" && ss.live != nil {
		return []string{"on_offer"}
	}
	return nil
}

// AppLogin is a login of the live view for an MCP client's MCP App,
// for the open offer id (ui.Live.MintAppLogin): secret is for the User's
// app alone; ws is the websocket's URL and origin the live view's, for
// the app's CSP.
func (ss *Session) AppLogin(id string) (secret, ws, origin string, expires time.Time, err error) {
	if ss.live == nil {
		return "", "", "", time.Time{}, errors.New("no live view")
	}
	l, err := ss.live.MintAppLogin(id)
	if err != nil {
		return "", "", "", time.Time{}, err
	}
	return l.Secret, l.WS, l.Origin, l.Expires, nil
}

// LiveOrigin is the live view's origin (no token), "" without one.
func (ss *Session) LiveOrigin() string {
	if ss.live == nil {
		return ""
	}
	u, err := url.Parse(ss.LiveURL())
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
