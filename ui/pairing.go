package ui

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"html/template"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/poppy-browser/poppy-browser/presence"
)

// DefaultPairTTL is how long a pairing link works.
const DefaultPairTTL = 5 * time.Minute

// A pairing link registers one of the User's devices (a passkey, user
// verification required) with this runtime. It is shown only where the
// User alone sees it: the terminal UI ([Live.MintPairing]) or the
// terminal that runs `poppy-browser pair` ([PairServer]). It works once
// (its first ceremony spends it, whatever the outcome) and for a bounded
// time; GET shows the page and spends nothing.

// pairLinks are the pairing links minted, by their secret's hash.
type pairLinks struct {
	mu    sync.Mutex
	links map[[32]byte]*pairEntry
	ttl   time.Duration
	now   func() time.Time
}

type pairEntry struct {
	expires time.Time
	state   string // "" while it works, else linkUsed or linkExpired
	pending *presence.Pairing
	done    bool
}

func newPairLinks(ttl time.Duration, now func() time.Time) *pairLinks {
	if ttl <= 0 {
		ttl = DefaultPairTTL
	}
	if now == nil {
		now = time.Now
	}
	return &pairLinks{links: map[[32]byte]*pairEntry{}, ttl: ttl, now: now}
}

// mint makes a pairing link's secret.
func (pl *pairLinks) mint() (string, time.Time, error) {
	tok, err := randomToken()
	if err != nil {
		return "", time.Time{}, err
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	exp := pl.now().Add(pl.ttl)
	pl.links[tokenHash(tok)] = &pairEntry{expires: exp}
	return tok, exp, nil
}

// check says why tok does not work ("" when it does); spend marks it used.
func (pl *pairLinks) check(tok string, spend bool) (string, *pairEntry) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	e, ok := pl.links[tokenHash(tok)]
	switch {
	case tok == "" || !ok:
		return linkUnknown, nil
	case e.state != "":
		return e.state, e
	case !pl.now().Before(e.expires):
		e.state = linkExpired
		return linkExpired, e
	}
	if spend {
		e.state = linkUsed
	}
	return "", e
}

// takePending returns the ceremony begun with tok, once.
func (pl *pairLinks) takePending(tok string) *presence.Pairing {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	e, ok := pl.links[tokenHash(tok)]
	if !ok || e.pending == nil || e.done {
		return nil
	}
	e.done = true
	return e.pending
}

var refusedPairWords = map[string]string{
	linkUsed:    "This pairing link has already been used: each one pairs one device, once. Make a new one in your terminal.",
	linkExpired: "This pairing link has expired. Make a new one in your terminal.",
	linkUnknown: "This pairing link is not valid here.",
}

var (
	//go:embed live/pair.html
	pairPageHTML string
	//go:embed live/pair.js
	pairPageJS string
	pairPage   = template.Must(template.New("pair").Parse(pairPageHTML))
)

type pairPageData struct {
	Why     string
	Minutes int
	Expires time.Time
	Script  template.JS
}

// servePairPage writes the pairing page for tok (a refusal when it does
// not work). frameAncestors is the page's CSP frame-ancestors.
func (pl *pairLinks) servePairPage(w http.ResponseWriter, tok, frameAncestors string) {
	why, e := pl.check(tok, false)
	d := pairPageData{Script: template.JS(pairPageJS)}
	status := http.StatusOK
	if why != "" {
		d.Why = refusedPairWords[why]
		status = http.StatusGone
		if why == linkUnknown {
			status = http.StatusNotFound
		}
	} else {
		d.Expires = e.expires.UTC()
		d.Minutes = max(1, int(e.expires.Sub(pl.now()).Round(time.Minute)/time.Minute))
	}
	var buf bytes.Buffer
	if err := pairPage.Execute(&buf, d); err != nil {
		http.Error(w, "the pairing page could not be shown", http.StatusInternalServerError)
		return
	}
	_, style, _ := strings.Cut(pairPageHTML, "<style>")
	style, _, _ = strings.Cut(style, "</style>")
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src "+cspHash(pairPageJS)+"; style-src "+cspHash(style)+
		"; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors "+frameAncestors)
	h.Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// pairRequestOK is the CSRF check of a pairing POST: from the pairing
// page's own script only (its origin, its header, same-origin fetch).
func pairRequestOK(r *http.Request, self string) bool {
	if !strings.EqualFold(r.Header.Get("Origin"), self) || r.Header.Get("X-Poppy-Pair") != "1" {
		return false
	}
	s := r.Header.Get("Sec-Fetch-Site")
	return s == "" || s == "same-origin"
}

// serveBegin spends the link and answers the registration's options.
func (pl *pairLinks) serveBegin(w http.ResponseWriter, tok string, rp *presence.Party) {
	w.Header().Set("Content-Type", "application/json")
	why, e := pl.check(tok, true)
	if why != "" {
		writeJSONError(w, http.StatusGone, refusedPairWords[why])
		return
	}
	if rp == nil {
		writeJSONError(w, http.StatusServiceUnavailable, "This page cannot register a passkey: open it at localhost (an IP address cannot hold one).")
		return
	}
	opts, pending, err := rp.BeginPairing()
	if err != nil {
		writeJSONError(w, http.StatusInternalServerError, "The runtime could not start the pairing.")
		return
	}
	pl.mu.Lock()
	e.pending = pending
	pl.mu.Unlock()
	_, _ = w.Write(opts)
}

// pairFinish is the pairing page's answer.
type pairFinish struct {
	Credential json.RawMessage `json:"credential"`
	Name       string          `json:"name"`
}

// serveFinish verifies the new credential and saves the device; paired
// is told of it.
func (pl *pairLinks) serveFinish(w http.ResponseWriter, r *http.Request, tok string, rp *presence.Party, paired func(presence.Device)) {
	w.Header().Set("Content-Type", "application/json")
	var f pairFinish
	if err := json.NewDecoder(io.LimitReader(r.Body, maxMessage)).Decode(&f); err != nil || len(f.Credential) == 0 {
		writeJSONError(w, http.StatusBadRequest, "The page sent no passkey.")
		return
	}
	pending := pl.takePending(tok)
	if pending == nil || rp == nil {
		writeJSONError(w, http.StatusGone, refusedPairWords[linkUsed])
		return
	}
	d, err := rp.FinishPairing(pending, f.Credential, f.Name)
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, "This device was not paired: "+err.Error()+".")
		return
	}
	if paired != nil {
		paired(d)
	}
	_ = json.NewEncoder(w).Encode(map[string]string{"id": d.ID, "name": d.Name})
}

func writeJSONError(w http.ResponseWriter, status int, msg string) {
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// PairLink is a pairing link: show it only to the User, where only they
// see it (their terminal).
type PairLink struct {
	URL     string
	Expires time.Time
}

// ErrNoPasskeys is returned by [Live.MintPairing] for a live view without
// a passkey store, or served where no passkey can be (an IP address).
var ErrNoPasskeys = errors.New("this live view has no passkeys (no store, or an IP address for an origin)")

// MintPairing makes a pairing link on the live view, for the terminal UI
// to show the User (text and QR code).
func (l *Live) MintPairing() (PairLink, error) {
	if l.party() == nil {
		return PairLink{}, ErrNoPasskeys
	}
	tok, exp, err := l.pairs.mint()
	if err != nil {
		return PairLink{}, err
	}
	return PairLink{URL: l.baseURL() + l.base + "/pair/" + tok, Expires: exp}, nil
}

func (l *Live) servePair(w http.ResponseWriter, r *http.Request) {
	l.pairs.servePairPage(w, r.PathValue("token"), l.remote.frameAncestors())
}

func (l *Live) servePairStep(w http.ResponseWriter, r *http.Request) {
	if !pairRequestOK(r, l.remote.selfOrigin(r.Host)) {
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusForbidden)
		return
	}
	tok := r.PathValue("token")
	switch r.PathValue("step") {
	case "begin":
		l.pairs.serveBegin(w, tok, l.party())
	case "finish":
		l.pairs.serveFinish(w, r, tok, l.party(), func(d presence.Device) {
			l.log.Info("device paired", "id", d.ID)
			l.broadcastState() // views without a proof can now ask for one
		})
	default:
		http.NotFound(w, r)
	}
}
