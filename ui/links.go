package ui

import (
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

// viewerSession is what a link was exchanged for, kept by the cookie
// value's hash.
type viewerSession struct {
	readOnly bool
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
	return Link{URL: base + "/live/link/" + tok, Expires: exp, Offer: offer, ReadOnly: readOnly}, nil
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

// serveLink exchanges a link for a viewer session: a cookie, then a page
// that replaces itself with the clean /live address, so the link stays
// neither in the address bar nor in the history. A link that does not
// work gets a page saying why.
func (l *Live) serveLink(w http.ResponseWriter, r *http.Request) {
	tok := r.PathValue("token")
	why, e := l.useLink(tok)
	if why != "" {
		l.audit(audit.Entry{Event: audit.EventLink, How: audit.LinkRefused, Reason: why, Offer: e.offer})
		l.serveRefusedLink(w, why)
		return
	}
	session, err := randomToken()
	if err != nil {
		http.Error(w, "the live view could not start a session", http.StatusInternalServerError)
		return
	}
	l.mu.Lock()
	l.viewers[tokenHash(session)] = viewerSession{readOnly: e.readOnly}
	l.mu.Unlock()
	l.audit(audit.Entry{Event: audit.EventLink, How: audit.LinkOpened, Offer: e.offer,
		Reason: readOnlyWord(e.readOnly), Message: "user agent: " + r.UserAgent()})
	http.SetCookie(w, l.viewerCookie(session))
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src "+cspHash(replaceScript)+"; base-uri 'none'; frame-ancestors "+l.remote.frameAncestors())
	_, _ = fmt.Fprintf(w, "<!doctype html><meta charset=utf-8><title>poppy-browser live view</title>"+
		"<p>Opening the live view…</p><script>%s</script>", replaceScript)
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

// replaceScript leaves the link's page for /live without a history entry.
// A script navigation (not an HTTP redirect) starts on this site, so the
// SameSite=Strict cookie goes with it even when the link came from another
// site's page (a chat, a mail).
const replaceScript = `location.replace("/live")`

// useLink marks the link of tok used and returns it, or says why it does
// not work.
func (l *Live) useLink(tok string) (string, linkEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
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
	e.state = linkUsed
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

// viewerCookie carries a viewer session; its name is this live view's own,
// as cookies ignore ports and several live views may share a host.
func (l *Live) viewerCookie(value string) *http.Cookie {
	c := &http.Cookie{
		Name:     l.cookieName,
		Value:    value,
		Path:     "/live",
		HttpOnly: true,
		Secure:   l.remote.secure(),
		SameSite: http.SameSiteStrictMode,
	}
	if len(l.remote.embed) > 0 {
		// In the agent's app's frame the live view is a third party: a
		// Strict cookie would never be sent. Partitioned keeps it to that
		// app's frames (CHIPS); embedding needs https (CheckServing).
		c.SameSite, c.Secure, c.Partitioned = http.SameSiteNoneMode, true, true
	}
	return c
}

// sessionOf returns the viewer session r's cookie names, if any.
func (l *Live) sessionOf(r *http.Request) (viewerSession, bool) {
	ck, err := r.Cookie(l.cookieName)
	if err != nil || ck.Value == "" {
		return viewerSession{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.viewers[tokenHash(ck.Value)]
	return v, ok
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
// newer one, declined, or over with the User's hand back or cancel.
func (l *Live) revokeOn(e control.Event) {
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
