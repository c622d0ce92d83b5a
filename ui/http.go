package ui

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/poppy-browser/poppy-browser/internal/loopback"
)

// liveFiles holds the live view's page and its script, in parts. The
// script and the page's style are inlined into the page when it is served
// and allowed by hash in its Content-Security-Policy, so the page needs no
// other request.
//
//go:embed live/live.html live/*.js
var liveFiles embed.FS

// liveScripts are the parts of the live view's script, in the order they
// run: one function scope, so they share its names (connection.js says
// which part holds what).
var liveScripts = []string{"connection.js", "presence.js", "render.js", "controls.js", "files.js", "input.js", "start.js"}

// scriptMarker is the line of live.html replaced by the inlined script.
const scriptMarker = "<!-- live.js -->"

// sitePage is the assembled live view page.
type sitePage struct {
	html       []byte
	scriptHash string // 'sha256-...' of the inline script
	styleHash  string // 'sha256-...' of the inline style
}

func buildSitePage() (sitePage, error) {
	html, err := liveFiles.ReadFile("live/live.html")
	if err != nil {
		return sitePage{}, err
	}
	var b strings.Builder
	b.WriteString("\"use strict\";\n(() => {\n")
	for _, name := range liveScripts {
		part, err := liveFiles.ReadFile("live/" + name)
		if err != nil {
			return sitePage{}, err
		}
		b.Write(part)
		b.WriteString("\n")
	}
	b.WriteString("})();\n")
	js := b.String()
	page := string(html)
	if !strings.Contains(page, scriptMarker) || strings.Contains(js, "</script") {
		return sitePage{}, errors.New("live view page: bad script placement")
	}
	_, rest, ok := strings.Cut(page, "<style>")
	style, _, ok2 := strings.Cut(rest, "</style>")
	if !ok || !ok2 {
		return sitePage{}, errors.New("live view page: no style element")
	}
	page = strings.Replace(page, scriptMarker, "<script>"+js+"</script>", 1)
	return sitePage{html: []byte(page), scriptHash: cspHash(js), styleHash: cspHash(style)}, nil
}

func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

func (l *Live) handler() http.Handler {
	mux := http.NewServeMux()
	b := l.base
	mux.HandleFunc("GET "+b, l.servePage)
	mux.HandleFunc("GET "+b+"/ws", l.serveWS)
	mux.HandleFunc("GET "+b+"/link/{token}", l.serveLink)
	mux.HandleFunc("POST "+b+"/link/{token}", l.serveLinkTake)
	mux.HandleFunc("POST "+b+"/links", l.serveMint)
	mux.HandleFunc("GET "+b+"/pair/{token}", l.servePair)
	mux.HandleFunc("POST "+b+"/pair/{token}/{step}", l.servePairStep)
	return l.guard(mux)
}

// guard refuses every request that lacks the User's signed identity, when
// one is needed (403 and one line saying which check failed, never the
// token), then every request that lacks its
// credential, reached the server under a host it does not answer to, or
// comes from another origin: a bare 403, no body, no hint of what was
// wrong. A refused connection is closed. Only the path is logged.
func (l *Live) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		if l.identity != nil {
			subject, until, err := l.identity.verifyUntil(r)
			if err != nil {
				l.log.Debug("live view request refused", "path", l.logPath(r.URL.Path), "reason", "identity", "why", err.Error())
				h.Set("Connection", "close")
				h.Set("Content-Type", "text/plain; charset=utf-8")
				w.WriteHeader(http.StatusForbidden)
				_, _ = io.WriteString(w, identityRefusal+err.Error()+".\n")
				return
			}
			r = r.WithContext(context.WithValue(r.Context(), verifiedSubjectKey{}, verifiedIdentity{subject, until}))
		}
		if why := l.refuse(r); why != "" {
			l.log.Debug("live view request refused", "path", l.logPath(r.URL.Path), "reason", why)
			h.Set("Connection", "close")
			w.WriteHeader(http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// logPath is path as a log line may hold it: a link's path is its
// secret, so what follows /link/ is left out (wherever it is: an
// uncleaned path may still name a link).
func (l *Live) logPath(path string) string {
	for _, secretPath := range []string{"/link/", "/pair/"} {
		if before, tok, ok := strings.Cut(path, secretPath); ok && tok != "" {
			return before + secretPath + "[redacted]"
		}
	}
	return path
}

// refuse says why r must be refused, or "" to serve it. Credentials: the
// websocket needs the per-run token or a live login (login.go); minting a
// link and any other path need the token; a link's path is its own
// secret, and its POST (which spends it) must come from its own page; the
// page /live is the same for everyone and holds no secret (a wrong token
// in its address is still refused).
func (l *Live) refuse(r *http.Request) string {
	if !l.hostOK(r.Host) {
		return "host"
	}
	origin := r.Header.Get("Origin")
	self := l.remote.selfOrigin(r.Host)
	token, hasToken := r.URL.Query()["token"]
	tokenOK := hasToken && len(token) == 1 && l.tokenOK(token[0])
	switch path := r.URL.Path; {
	case path == l.base+"/ws":
		// Browsers always send Origin on a websocket handshake; a scripted
		// client must send it too.
		_, login, ok := l.loginOf(r)
		if !strings.EqualFold(origin, self) && (!ok || !login.app) { // an MCP App's login: applogin.go
			return "origin"
		}
		if !tokenOK && !ok {
			return "token"
		}
		return ""
	case strings.HasPrefix(path, l.base+"/pair/"):
		// A pairing link's path is its own secret; its POSTs are checked
		// as its page's own (pairRequestOK).
		if r.Method == http.MethodPost {
			return ""
		}
	case strings.HasPrefix(path, l.base+"/link/"):
		if r.Method == http.MethodPost {
			// Spending a link: only its own page's script (CSRF). A form
			// or fetch from another origin sends that origin (or "null").
			if !strings.EqualFold(origin, self) || r.Header.Get("X-Poppy-Link") != "take" {
				return "origin"
			}
			if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" {
				return "fetch-site"
			}
			return ""
		}
	case path == l.base:
		if hasToken && !tokenOK {
			return "token"
		}
	default:
		if !tokenOK {
			return "token"
		}
	}
	if origin != "" && !strings.EqualFold(origin, self) {
		return "origin"
	}
	// Fetch metadata: another site may link to the page (a navigation) but
	// not load it any other way.
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
		dest := r.Header.Get("Sec-Fetch-Dest")
		// A frame is allowed only with embedding origins; CSP
		// frame-ancestors then says which pages may hold it.
		framed := dest == "iframe" && len(l.remote.embed) > 0
		if r.Header.Get("Sec-Fetch-Mode") != "navigate" || (dest != "document" && !framed) {
			return "fetch-site"
		}
	}
	return ""
}

// identityRefusal begins the one line a request without the User's
// verified identity gets; the failed check follows.
const identityRefusal = "This live view answers only requests with the User's signed identity from the operator's authenticating proxy (--live-identity-header): "

// verifiedSubjectKey is the request context's key of the identity the
// guard verified (a verifiedIdentity).
type verifiedSubjectKey struct{}

// verifiedIdentity is the subject the guard verified on a request, and
// when that identity expires (its exp plus the skew): a websocket opened
// with it stays open past that, its proof does not (sweepProofs).
type verifiedIdentity struct {
	subject string
	until   time.Time
}

// identityUntil is when the identity the guard verified on r expires
// (zero without one).
func identityUntil(r *http.Request) time.Time {
	v, _ := r.Context().Value(verifiedSubjectKey{}).(verifiedIdentity)
	return v.until
}

// IdentityProof reports whether the guard verified the operator's signed
// identity of the session's User on r (UserIdentity), and then the
// subject's hash ([SubjectHash]): the proof of presence "identity" of the
// view r opens. Without UserIdentity it is always false.
func (l *Live) IdentityProof(r *http.Request) (subjectHash string, ok bool) {
	v, ok := r.Context().Value(verifiedSubjectKey{}).(verifiedIdentity)
	sub := v.subject
	if !ok || sub == "" || l.identity == nil {
		return "", false
	}
	return SubjectHash(sub), true
}

func (l *Live) tokenOK(got string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(l.token.Reveal())) == 1
}

// hostOK reports whether host (the Host header) names this server: its port,
// and, when it listens on loopback, a loopback name, so that a page on
// another name that resolves to 127.0.0.1 (DNS rebinding) is refused.
func (l *Live) hostOK(host string) bool {
	if p := l.remote.public; p != nil {
		// Behind a proxy, which passes the public Host on (see SECURITY.md).
		return strings.EqualFold(host, p.Host) || strings.EqualFold(host, p.Host+":443")
	}
	name, port, err := net.SplitHostPort(host)
	if err != nil || name == "" {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".-:", c)) {
			return false
		}
	}
	l.mu.Lock()
	addr := l.listenAddrLocked()
	l.mu.Unlock()
	ta, ok := addr.(*net.TCPAddr)
	if !ok {
		return false
	}
	if port != strconv.Itoa(ta.Port) {
		return false
	}
	if !ta.IP.IsLoopback() {
		return true
	}
	return loopback.Host(name)
}

func (l *Live) servePage(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'self'; script-src "+l.site.scriptHash+
		"; style-src "+l.site.styleHash+"; connect-src 'self' "+l.wsOrigin(r.Host)+
		"; img-src data: blob:; base-uri 'none'; form-action 'none'; frame-ancestors "+l.remote.frameAncestors())
	if len(l.remote.embed) == 0 {
		h.Set("X-Frame-Options", "DENY") // for browsers without frame-ancestors
	}
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	_, _ = w.Write(l.site.html)
}

// wsOrigin is the websocket origin of the live view reached at host.
func (l *Live) wsOrigin(host string) string {
	if p := l.remote.public; p != nil {
		return "wss://" + p.Host
	}
	if l.remote.secure() {
		return "wss://" + host
	}
	return "ws://" + host
}
