package ui

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/control"
)

// DefaultLinkTTL is how long a hand-off link works when LiveOptions.LinkTTL
// is zero.
const DefaultLinkTTL = 10 * time.Minute

// Link is a single-use hand-off link: opening it once, before Expires,
// exchanges it for a viewer session of this live view. Its URL is a secret:
// give it only to the User.
type Link struct {
	URL      string
	Expires  time.Time
	Offer    string // the offer it was minted for; "" for none
	ReadOnly bool   // its viewer watches and never takes control
}

// ErrOfferGone is returned by [Live.MintLink] for an offer that is no
// longer open.
var ErrOfferGone = errors.New("the offer is no longer open")

// Why a link is refused, in the audit log and on the page the User sees.
const (
	linkUsed      = "used"
	linkExpired   = "expired"
	linkRevoked   = "revoked"
	linkUnknown   = "unknown"
	linkWithdrawn = "withdrawn"
)

// linkEntry is a minted link, kept by its token's hash: the token itself
// is not kept.
type linkEntry struct {
	offer    string
	expires  time.Time
	readOnly bool
	state    string // "" while it works, else why it no longer does
}

// MintLink makes a link for offer ("" for none: a User who wants in
// without an offer). A link for an offer that is not the open one is
// refused with [ErrOfferGone].
func (l *Live) MintLink(offer string, readOnly bool) (Link, error) {
	tok, err := randomToken()
	if err != nil {
		return Link{}, fmt.Errorf("minting a live view link: %w", err)
	}
	base := l.baseURL()
	if base == "" {
		return Link{}, errors.New("minting a live view link: not started")
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return Link{}, errors.New("minting a live view link: shut down")
	}
	// Checked under l.mu, as revokeOffer runs under it: a link is never
	// minted for an offer whose revocation has already run.
	if offer != "" && !l.offerOpen(offer) {
		l.mu.Unlock()
		return Link{}, fmt.Errorf("minting a live view link: %w", ErrOfferGone)
	}
	exp := l.now().Add(l.linkTTL)
	l.links[tokenHash(tok)] = &linkEntry{offer: offer, expires: exp, readOnly: readOnly}
	l.mu.Unlock()
	l.audit(audit.Entry{Event: audit.EventLink, How: audit.LinkMinted, Offer: offer, Reason: readOnlyWord(readOnly)})
	return Link{URL: base + l.base + "/link/" + tok, Expires: exp, Offer: offer, ReadOnly: readOnly}, nil
}

func readOnlyWord(readOnly bool) string {
	if readOnly {
		return "read_only"
	}
	return ""
}

// offerOpen reports whether id is the open offer.
func (l *Live) offerOpen(id string) bool {
	o := l.ctl.Status().Offer
	return o != nil && o.ID == id
}

// revokeOffer revokes the unused links of offer (withdrawn, declined,
// handed back or cancelled).
func (l *Live) revokeOffer(offer string) {
	l.revokeWhere(func(e *linkEntry) bool { return e.offer == offer })
}

// revokeAll revokes every unused link (the live view ends).
func (l *Live) revokeAll() { l.revokeWhere(func(*linkEntry) bool { return true }) }

func (l *Live) revokeWhere(match func(*linkEntry) bool) {
	var revoked []string
	l.mu.Lock()
	for _, e := range l.links {
		if e.state == "" && match(e) {
			e.state = linkRevoked
			revoked = append(revoked, e.offer)
		}
	}
	l.mu.Unlock()
	for _, offer := range revoked {
		l.audit(audit.Entry{Event: audit.EventLink, How: audit.LinkRevoked, Offer: offer})
	}
}

// serveLink shows what a link is for (the Company, the agent's reason,
// when the link stops working) and one button; it spends nothing, so a
// link preview, a mail scanner or a second look leaves the link usable.
// Only the button's POST ([Live.serveLinkTake]) spends it. A link that
// does not work gets a page saying why.
func (l *Live) serveLink(w http.ResponseWriter, r *http.Request) {
	why, e := l.peekLink(r.PathValue("token"))
	if why != "" {
		l.audit(audit.Entry{Event: audit.EventLink, How: audit.LinkRefused, Reason: why, Offer: e.offer})
		l.serveRefusedLink(w, why)
		return
	}
	l.serveLinkPage(w, e)
}

// serveLinkTake spends a link, on the User's click on its page: it answers
// {"viewer", "take", "read_only"}, the viewer's secret for this live view
// (a login that ends with the turn it was minted for, login.go), which
// the page keeps in its own origin's sessionStorage and presents on the
// websocket. No cookie: a cookie on a loopback host goes to every port of
// it. The guard has checked that the request comes from the link's own
// page (Origin, Sec-Fetch-Site). A link that does not work gets 410 (404
// for an unknown one) and {"error"} with the words the User reads.
func (l *Live) serveLinkTake(w http.ResponseWriter, r *http.Request) {
	why, e := l.useLink(r.PathValue("token"))
	w.Header().Set("Content-Type", "application/json")
	if why != "" {
		l.audit(audit.Entry{Event: audit.EventLink, How: audit.LinkRefused, Reason: why, Offer: e.offer})
		status := http.StatusGone
		if why == linkUnknown {
			status = http.StatusNotFound
		}
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": refusedLinkWords[why]})
		return
	}
	secret, err := randomToken()
	if err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "the live view could not start a session"})
		return
	}
	l.addLogin(secret, e)
	l.audit(audit.Entry{Event: audit.EventLink, How: audit.LinkOpened, Offer: e.offer,
		Reason: readOnlyWord(e.readOnly), Message: "user agent: " + r.UserAgent()})
	_ = json.NewEncoder(w).Encode(map[string]any{"viewer": secret, "take": e.offer != "" && !e.readOnly, "read_only": e.readOnly})
}

// serveMint mints a link without an offer for the holder of the per-run
// token (the live-link command, for a User who wants in): {"link",
// "expires"}; read_only=1 makes it a watching link.
func (l *Live) serveMint(w http.ResponseWriter, r *http.Request) {
	link, err := l.MintLink("", r.URL.Query().Get("read_only") == "1")
	if err != nil {
		http.Error(w, "could not mint a link", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"link": link.URL, "expires": link.Expires, "read_only": link.ReadOnly})
}

// peekLink says why the link of tok does not work, or "" and its entry;
// it spends nothing.
func (l *Live) peekLink(tok string) (string, linkEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.checkLinkLocked(tok)
}

// useLink marks the link of tok used and returns it, or says why it does
// not work.
func (l *Live) useLink(tok string) (string, linkEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	why, e := l.checkLinkLocked(tok)
	if why == "" {
		l.links[tokenHash(tok)].state = linkUsed
	}
	return why, e
}

// checkLinkLocked is peekLink with l.mu held. An expired or withdrawn
// link is marked so.
func (l *Live) checkLinkLocked(tok string) (string, linkEntry) {
	e, ok := l.links[tokenHash(tok)]
	switch {
	case tok == "" || !ok:
		return linkUnknown, linkEntry{}
	case e.state != "":
		return e.state, *e
	case !l.now().Before(e.expires):
		e.state = linkExpired
		return linkExpired, *e
	case e.offer != "" && !l.offerOpen(e.offer):
		e.state = linkWithdrawn
		return linkWithdrawn, *e
	}
	return "", *e
}

// refusedLinkWords is what the User reads for each reason.
var refusedLinkWords = map[string]string{
	linkUsed:      "This link has already been used. Each link opens the live view once: ask the agent for a new one.",
	linkExpired:   "This link has expired. Ask the agent for a new one.",
	linkRevoked:   "This link no longer works: the agent's offer ended (it was answered, withdrawn, or the session ended).",
	linkWithdrawn: "This link no longer works: the agent's offer ended (it was answered, withdrawn, or the session ended).",
	linkUnknown:   "This link is not valid for this live view.",
}

func (l *Live) serveRefusedLink(w http.ResponseWriter, why string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; base-uri 'none'; frame-ancestors "+l.remote.frameAncestors())
	status := http.StatusGone
	if why == linkUnknown {
		status = http.StatusNotFound
	}
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, "<!doctype html><meta charset=utf-8><meta name=viewport content=\"width=device-width\">"+
		"<title>Link not valid - poppy-browser</title><h1>This live view link does not work</h1><p id=why>%s</p>",
		html.EscapeString(refusedLinkWords[why]))
}

// ViewerConnected reports whether a viewer is connected to the live view.
func (l *Live) ViewerConnected() bool { return l.Clients() > 0 }

func (l *Live) audit(e audit.Entry) {
	if err := l.auditLog.Record(e); err != nil {
		l.log.Error("audit record failed", "event", e.Event, "err", err)
	}
}

func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func tokenHash(tok string) [32]byte { return sha256.Sum256([]byte(tok)) }

// revokeOn revokes an offer's links when the offer ends: replaced by a
// newer one, declined, or over with the User's hand back or cancel; and
// ends the logins whose turn is over (sweepLogins).
func (l *Live) revokeOn(e control.Event) {
	l.noteTurn(e) // files.go
	l.sweepLogins()
	if e.Offer == nil {
		return
	}
	switch e.Kind {
	case control.Offered:
		current := e.Offer.ID
		l.revokeWhere(func(le *linkEntry) bool { return le.offer != "" && le.offer != current })
	case control.Declined, control.HandedBack, control.Cancelled:
		l.revokeOffer(e.Offer.ID)
	}
}

// sweepLoginsEvery ends, every loginSweep until ctx ends, the logins whose
// link expired without a take: no control event marks that moment.
func (l *Live) sweepLoginsEvery(ctx context.Context) {
	tick := time.NewTicker(loginSweep)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			l.sweepLogins()
			l.sweepProofs()
		}
	}
}
