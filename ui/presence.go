package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/presence"
)

// A view (one websocket) shows the offer card and nothing else until the
// User proves their presence in it: no picture, no page address, no take,
// no hand back. The proof is a passkey ceremony run in that view (its
// challenge kept by the connection, bound to the offer open when it began,
// or, with none, to the control epoch), an identity the operator's proxy
// signed (LiveOptions.Identity, checked on the websocket's request), or,
// only with LiveOptions.InsecureTakeByLink, the link or token itself.

// viewProof is the proof a view made, and what it holds for.
type viewProof struct {
	proof control.Proof
	// offer is the offer it was made for; with none, epoch is the control
	// epoch it was made in. always: it holds for the connection (identity,
	// insecure-link).
	offer  string
	epoch  uint64
	always bool
	// identityUntil: an identity proof ends when the identity expires
	// (by the identity's clock), though its websocket stays open.
	identityUntil time.Time
}

// holds reports whether p still proves the User's presence in its view,
// st being the current status: a passkey proof for an offer holds while
// that offer is open (through the User's turn for it); one made without
// an offer holds while no offer is open and the control epoch has not
// moved (a hand back ends it).
func (p *viewProof) holds(st control.Status) bool {
	switch {
	case p == nil:
		return false
	case p.always:
		return true
	case p.offer != "":
		return st.Offer != nil && st.Offer.ID == p.offer
	default:
		return st.Offer == nil && st.Epoch == p.epoch
	}
}

// pendingCeremony is an assertion begun in a view, bound to the offer (or
// the control epoch) of that moment.
type pendingCeremony struct {
	assertion *presence.Assertion
	offer     string
	epoch     uint64
}

// presenceMsg is the state's word on the view's proof.
type presenceMsg struct {
	Proved bool   `json:"proved"`
	Kind   string `json:"kind,omitempty"`
	// Passkeys: a passkey ceremony can run in this view (a device is
	// paired, and the live view has an RP ID).
	Passkeys bool `json:"passkeys"`
	// Expires is when this view's login ends if no turn is taken.
	Expires *time.Time `json:"expires,omitempty"`
	// Unpaired: this view's proof ended because its device was unpaired
	// (`pair --revoke`), so it shows the offer card again with its own
	// words, not an error.
	Unpaired bool `json:"unpaired,omitempty"`
}

// challengeMsg carries a ceremony's options to the view.
type challengeMsg struct {
	Type    string          `json:"type"` // "presence_challenge"
	Options json.RawMessage `json:"options"`
}

// refusedMsg says a proof was refused, in words for the User.
type refusedMsg struct {
	Type    string `json:"type"` // "presence_refused"
	Message string `json:"message"`
}

// InsecureWarning is what --insecure-take-by-link announces at start and
// at every take.
const InsecureWarning = "WARNING: --insecure-take-by-link: whoever holds a live view link or the live view's token can take control, watch and hand back; no proof of the User's presence is asked. Only for tests and demos."

// proofOf is c's proof while it holds, else nil.
func (l *Live) proofOf(c *client, st control.Status) *viewProof {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.proofOfLocked(c, st)
}

func (l *Live) proofOfLocked(c *client, st control.Status) *viewProof {
	if c.proof.holds(st) && !l.identityExpired(c.proof) {
		return c.proof
	}
	return nil
}

// identityExpired reports whether p is an identity proof whose identity
// has expired.
func (l *Live) identityExpired(p *viewProof) bool {
	return p != nil && !p.identityUntil.IsZero() && (l.identity == nil || l.identity.expired(p.identityUntil))
}

// proveOnConnect gives a new view the proofs that come with its request:
// the operator's verified identity, or (--insecure-take-by-link) the
// link or token it came with.
func (l *Live) proveOnConnect(c *client, r *http.Request) {
	if l.identity != nil {
		if subject, ok := l.IdentityProof(r); ok {
			c.proof = &viewProof{proof: control.Proof{Kind: control.ProofIdentity, Subject: subject}, always: true, identityUntil: identityUntil(r)}
			return
		}
	}
	if l.insecure {
		c.proof = &viewProof{proof: control.Proof{Kind: control.ProofInsecureLink}, always: true}
	}
}

// party is the live view's relying party, made once it is served (its
// origin has a port then); nil when it has no passkey store or its
// origin is an IP address.
func (l *Live) party() *presence.Party {
	if l.passkeys == nil {
		return nil
	}
	origin := l.baseURL()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rp == nil && origin != "" {
		p, err := presence.NewParty(origin, l.passkeys)
		if err != nil {
			l.log.Debug("live view without passkeys", "err", err)
			return nil
		}
		l.rp = p
	}
	return l.rp
}

// presenceFor is the state's presence for c.
func (l *Live) presenceFor(c *client, st control.Status) *presenceMsg {
	m := &presenceMsg{}
	if p := l.proofOf(c, st); p != nil {
		m.Proved, m.Kind = true, string(p.proof.Kind)
	} else {
		l.mu.Lock()
		m.Unpaired = c.unpaired
		l.mu.Unlock()
	}
	if rp := l.party(); rp != nil {
		m.Passkeys = rp.Paired() > 0
	}
	if c.hasLogin {
		l.mu.Lock()
		if v, ok := l.viewers[c.login]; ok && v.turn == 0 && !v.expires.IsZero() {
			exp := v.expires.UTC()
			m.Expires = &exp
		}
		l.mu.Unlock()
	}
	return m
}

// beginPresence starts a passkey ceremony in c, bound to the offer open
// now (or, with none, the control epoch).
func (l *Live) beginPresence(c *client) {
	rp := l.party()
	if rp == nil {
		c.queue(refusedMsg{Type: "presence_refused", Message: "This live view cannot check a passkey (it has no passkey store, or it is served on an IP address)."})
		return
	}
	opts, a, err := rp.BeginAssertion()
	if err != nil {
		msg := "The live view could not start the check; try again."
		if errors.Is(err, presence.ErrNoDevices) {
			msg = "No device is paired with this runtime yet: pair one from your terminal (poppy-browser pair, or p in the terminal UI)."
		}
		c.queue(refusedMsg{Type: "presence_refused", Message: msg})
		return
	}
	st := l.ctl.Status()
	pc := &pendingCeremony{assertion: a, epoch: st.Epoch}
	if st.Offer != nil {
		pc.offer = st.Offer.ID
	}
	l.mu.Lock()
	c.pending = pc
	l.mu.Unlock()
	c.queue(challengeMsg{Type: "presence_challenge", Options: opts})
}

// finishPresence verifies c's answer to its ceremony (once: the ceremony
// is spent whatever the outcome) and, when it proves the User's presence
// for the offer (or epoch) it was begun for, makes it c's proof.
func (l *Live) finishPresence(c *client, credential []byte) {
	l.mu.Lock()
	pc := c.pending
	c.pending = nil
	l.mu.Unlock()
	refuse := func(why string) {
		l.log.Debug("live view presence refused", "reason", why)
		c.queue(refusedMsg{Type: "presence_refused", Message: "Your passkey was not accepted: " + why + "."})
	}
	rp := l.party()
	if pc == nil || rp == nil {
		refuse("no check was started in this view")
		return
	}
	st := l.ctl.Status()
	now := ""
	if st.Offer != nil {
		now = st.Offer.ID
	}
	if now != pc.offer || (pc.offer == "" && st.Epoch != pc.epoch) {
		refuse("the agent's offer changed while you were asked; try again")
		return
	}
	proof, err := rp.FinishAssertion(pc.assertion, credential)
	if err != nil {
		refuse(err.Error())
		return
	}
	l.mu.Lock()
	c.proof = &viewProof{proof: proof, offer: pc.offer, epoch: pc.epoch}
	c.unpaired = false
	frame := l.lastFrame
	step := l.step
	l.mu.Unlock()
	l.log.Info("live view presence proved", "proof", string(proof.Kind), "credential", proof.Credential)
	l.queueState(c)
	if step != nil {
		c.queue(stepMsg{Type: "step", Box: step})
	}
	if frame != nil {
		c.pushFrame(frame)
	}
}

// sweepProofs ends the identity proofs whose identity expired, and the
// passkey proofs of devices no longer paired (`pair --revoke`): their
// views show the offer card again, saying why.
func (l *Live) sweepProofs() {
	var expired []*client
	l.mu.Lock()
	for c := range l.clients {
		if l.identityExpired(c.proof) {
			c.proof = nil
			expired = append(expired, c)
		}
	}
	l.mu.Unlock()
	for _, c := range expired {
		l.log.Debug("live view identity expired: the view's proof ends")
		l.queueState(c)
	}
	if l.passkeys == nil {
		return
	}
	var lapsed []*client
	l.mu.Lock()
	for c := range l.clients {
		if p := c.proof; p != nil && p.proof.Kind == control.ProofPasskey {
			lapsed = append(lapsed, c)
		}
	}
	l.mu.Unlock()
	for _, c := range lapsed {
		l.mu.Lock()
		cred := ""
		if c.proof != nil {
			cred = c.proof.proof.Credential
		}
		l.mu.Unlock()
		if cred == "" || l.passkeys.Has(cred) {
			continue
		}
		l.mu.Lock()
		c.proof, c.unpaired = nil, true
		l.mu.Unlock()
		l.queueState(c)
	}
}

// warnInsecureTake says, on every take, that it rested on a link alone.
func (l *Live) warnInsecureTake() {
	l.log.Warn("take by link without a proof of presence (--insecure-take-by-link)")
	if l.warnings != nil {
		fmt.Fprintln(l.warnings, "poppy-browser: "+InsecureWarning)
	}
}
