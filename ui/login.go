package ui

import (
	"bytes"
	_ "embed"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// A login is what a spent link gives the User's browser: a secret (the
// viewer's) that the live page keeps in its own origin's sessionStorage
// and presents on the websocket as a Sec-WebSocket-Protocol value,
// viewerProtocolPrefix + secret (never in a URL, which lands in logs;
// never a cookie, which a loopback host's other ports would receive).
// The server keeps only its hash. A login ends with the User's turn it
// was minted for:
//   - an offer's login while that offer is open: until the User's turn
//     for it ends (hand back, cancel), the offer ends (declined,
//     withdrawn, replaced), or, if the turn was never taken, the link's
//     expiry;
//   - a login without an offer (the live-link command): LinkTTL after it
//     was opened, or, if the User took control through it, when that turn
//     ends.
//
// A login that ended is gone: its viewers hear "ended" and are closed,
// and coming back needs a new link.
const (
	viewerProtocol       = "poppy-live"
	viewerProtocolPrefix = "poppy-viewer."
	// loginSweep is how often logins are checked for their expiry (a
	// change of control checks them at once).
	loginSweep = time.Second
)

// viewerSession is one login, kept by its secret's hash.
type viewerSession struct {
	readOnly bool
	offer    string    // the offer its link was minted for; "" for none
	expires  time.Time // while it has taken no turn
	// turn is the control epoch + 1 of the User's turn taken through it
	// (a login without an offer); 0 while it has taken none.
	turn uint64
	// app: an MCP App's login (applogin.go), which may connect from
	// another origin: the one it first connected from (origin), one
	// connection at a time (conns).
	app    bool
	origin string
	conns  int
	// epoch is the control epoch when it was given: a later one means a
	// turn ended (a hand back or cancel) since.
	epoch uint64
}

// endedMsg tells a viewer its login has ended; the connection closes.
// Kind says how when the User ended it themselves (handed_back,
// cancelled, declined): the view then shows the end of a turn done, with
// Note, the User's own message, not a failure.
type endedMsg struct {
	Type    string `json:"type"` // "ended"
	Message string `json:"message"`
	Kind    string `json:"kind,omitempty"`
	Note    string `json:"note,omitempty"`
}

const endedWords = "This live view's login has ended: the turn it was for is over, or its time ran out. To take control again, open a new link."

// addLogin records the login given for the spent link e.
func (l *Live) addLogin(secret string, e linkEntry) {
	v := &viewerSession{readOnly: e.readOnly, offer: e.offer, expires: e.expires, epoch: l.ctl.Status().Epoch}
	if e.offer == "" {
		v.expires = l.now().Add(l.linkTTL)
	}
	l.mu.Lock()
	l.viewers[tokenHash(secret)] = v
	l.mu.Unlock()
}

// loginAliveLocked reports whether v has not ended, st being the current
// status. l.mu must be held.
func loginAliveLocked(v *viewerSession, st control.Status, now time.Time) bool {
	switch {
	case v.turn != 0:
		return st.Controller == spec.ControllerUser && st.Epoch+1 == v.turn
	case v.offer != "":
		if st.Offer == nil || st.Offer.ID != v.offer {
			return false
		}
		// The User's turn for its offer (the offer stays open until it
		// ends), or not taken yet and the link's time not over.
		return st.Controller == spec.ControllerUser || now.Before(v.expires)
	default:
		return now.Before(v.expires)
	}
}

// loginOf returns the hash of the live login r presents on a websocket
// handshake, and that login.
func (l *Live) loginOf(r *http.Request) ([32]byte, *viewerSession, bool) {
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for p := range strings.SplitSeq(h, ",") {
			secret, ok := strings.CutPrefix(strings.TrimSpace(p), viewerProtocolPrefix)
			if !ok || secret == "" {
				continue
			}
			key := tokenHash(secret)
			st, now := l.ctl.Status(), l.now()
			l.mu.Lock()
			v, found := l.viewers[key]
			alive := found && loginAliveLocked(v, st, now)
			l.mu.Unlock()
			if alive {
				return key, v, true
			}
		}
	}
	return [32]byte{}, nil, false
}

// loginAlive reports whether c's login (if it has one) has not ended.
func (l *Live) loginAlive(c *client) bool {
	if !c.hasLogin {
		return true
	}
	st, now := l.ctl.Status(), l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.viewers[c.login]
	return ok && loginAliveLocked(v, st, now)
}

// markTurn binds c's login without an offer to the User's current turn
// (epoch): it then ends when that turn ends, not at its expiry.
func (l *Live) markTurn(c *client, epoch uint64) {
	if !c.hasLogin {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if v, ok := l.viewers[c.login]; ok && v.offer == "" {
		v.turn = epoch + 1
	}
}

// sweepLogins forgets the logins that ended and closes their viewers.
func (l *Live) sweepLogins() {
	st, now := l.ctl.Status(), l.now()
	var ended []*client
	endings := map[[32]byte]endedMsg{}
	l.mu.Lock()
	for k, v := range l.viewers {
		if !loginAliveLocked(v, st, now) {
			delete(l.viewers, k)
			endings[k] = endingOf(v, st, now)
		}
	}
	for c := range l.clients {
		if _, ok := l.viewers[c.login]; c.hasLogin && !ok {
			ended = append(ended, c)
		}
	}
	l.mu.Unlock()
	for _, c := range ended {
		m, ok := endings[c.login]
		if !ok {
			m = endedMsg{Type: "ended", Message: endedWords}
		}
		l.endLogin(c, m)
	}
}

// endingOf is the ended message of login v, which st ended at now: the
// User's own hand back, cancel or decline when that is what ended it; a
// link whose time ran out before any turn ("expired": not a failure, the
// offer may still be open); else a login that is over (its offer
// withdrawn or replaced).
func endingOf(v *viewerSession, st control.Status, now time.Time) endedMsg {
	m := endedMsg{Type: "ended", Message: endedWords}
	switch {
	case st.Controller != spec.ControllerAgent:
	case st.LastReturn != nil && st.Epoch > v.epoch && (v.turn != 0 || v.offer != ""):
		m.Kind = string(st.LastReturn.How)
	case v.offer != "" && st.Declined != nil && st.Declined.Offer == v.offer:
		m.Kind = "declined"
	case v.turn == 0 && !v.expires.IsZero() && !now.Before(v.expires) && st.Epoch == v.epoch &&
		(v.offer == "" || st.Offer != nil && st.Offer.ID == v.offer):
		m.Kind, m.Message = endedExpired, expiredWords
		return m
	}
	if m.Kind != "" {
		m.Note = st.UserMessage
	}
	return m
}

// endedExpired is the ended kind of a login whose time ran out before the
// User took a turn through it.
const endedExpired = "expired"

const expiredWords = "This link's time ran out before you took control. If the agent still needs you, ask it for a new link."

// endLogin tells c its login ended (m) and closes it once that is written.
func (l *Live) endLogin(c *client, m endedMsg) {
	if !c.queueLast(m) {
		return
	}
	l.wg.Go(func() {
		select {
		case <-c.flush():
		case <-time.After(writeTimeout):
		}
		c.close()
	})
}

// The link's page: what the link is for and one button, whose script
// POSTs to the link (spending it), keeps the viewer's secret in
// sessionStorage and replaces itself with /live, leaving no history entry
// holding the link.
var (
	//go:embed live/link.html
	linkPageHTML string
	//go:embed live/link.js
	linkPageJS string
	linkPage   = template.Must(template.New("link").Parse(linkPageHTML))
)

type linkPageData struct {
	Company, Reason, Step string
	Expires               time.Time
	Minutes               int
	Offer, ReadOnly       bool
	Script                template.JS
}

// serveLinkPage writes the page of a working link e.
func (l *Live) serveLinkPage(w http.ResponseWriter, e linkEntry) {
	d := linkPageData{Company: l.company, Expires: e.expires.UTC(), Offer: e.offer != "", ReadOnly: e.readOnly,
		Script: template.JS(linkPageJS)}
	if d.Company == "" {
		d.Company = "the Company"
	}
	if m := int(e.expires.Sub(l.now()).Round(time.Minute) / time.Minute); m > 0 {
		d.Minutes = m
	} else {
		d.Minutes = 1
	}
	if o := l.ctl.Status().Offer; o != nil && o.ID == e.offer {
		d.Reason = o.Reason
		if o.Step != nil {
			d.Step = o.Step.Text
		}
	}
	var buf bytes.Buffer
	if err := linkPage.Execute(&buf, d); err != nil {
		http.Error(w, "the live view could not show the link", http.StatusInternalServerError)
		return
	}
	_, style, _ := strings.Cut(linkPageHTML, "<style>")
	style, _, _ = strings.Cut(style, "</style>")
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src "+cspHash(linkPageJS)+"; style-src "+cspHash(style)+
		"; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors "+l.remote.frameAncestors())
	if len(l.remote.embed) == 0 {
		h.Set("X-Frame-Options", "DENY")
	}
	_, _ = w.Write(buf.Bytes())
}
