package testsite

import (
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/poppy-browser/poppy-browser/spec"
)

// Limits of the browser credential.
const (
	maxLifetime = 60 * time.Second // exp - iat, and exp must be after iat
	// clockSkew is how far the agent's clock may be from the airline's:
	// iat and nbf may be this far in the future, exp this far in the past.
	// A few seconds: the credential lives at most a minute, and both
	// clocks are expected to follow NTP.
	clockSkew   = 5 * time.Second
	maxFormSize = 64 << 10
)

// Reasons a join is refused, as the 400 body and Join.Reason say them.
const (
	ReasonMissingAssertion = "missing_assertion"
	ReasonMalformed        = "malformed"
	ReasonBadType          = "bad_type"
	ReasonBadSignature     = "bad_signature"
	ReasonBadAudience      = "bad_audience"
	ReasonMissingTimes     = "missing_iat_or_exp"
	ReasonMissingIssuer    = "missing_iss"
	ReasonMissingSubject   = "missing_sub"
	ReasonLifetime         = "lifetime_too_long"
	ReasonNotYetValid      = "not_yet_valid"
	ReasonExpired          = "expired"
	ReasonMissingJTI       = "missing_jti"
	ReasonMissingSession   = "missing_session_id"
	ReasonBadReturnTo      = "bad_return_to"
	ReasonReplayed         = "replayed"
)

// JoinAnswer is how the join endpoint answers a credential it accepts.
// Anything but [JoinAnswerSeeOther] breaks the protocol on purpose, for
// tests of a runtime facing a Company that no one here wrote.
type JoinAnswer int

// Join answers.
const (
	// JoinAnswerSeeOther sets the session cookie and answers 303 to
	// return_to: the protocol, and the default.
	JoinAnswerSeeOther JoinAnswer = iota
	// JoinAnswerOK sets the session cookie and answers 200 with a page.
	JoinAnswerOK
	// JoinAnswerOffSite sets the session cookie and answers 303 to
	// https://partner.test/landing.
	JoinAnswerOffSite
	// JoinAnswerTemporaryRedirect answers 307 to
	// https://partner.test/collect, which makes a browser re-send the POST
	// (and the credential) there.
	JoinAnswerTemporaryRedirect
	// JoinAnswerNoCookie answers 303 to return_to without a cookie.
	JoinAnswerNoCookie
)

// SetJoinAnswer sets how the join endpoint answers an accepted credential
// from now on.
func (s *Site) SetJoinAnswer(a JoinAnswer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.joinAnswer = a
}

// browserClaims are the claims of a browser credential besides the
// registered ones.
type browserClaims struct {
	SessionID string `json:"session_id"`
	ReturnTo  string `json:"return_to"`
}

// defaultPoppyJSON is the discovery document the Site serves by default.
func defaultPoppyJSON() []byte {
	doc := map[string]any{
		"protocol_version": "0.4",
		"organization":     map[string]string{"name": OrgName, "domain": CompanyDomain},
		"web":              map[string]string{"browser_session_endpoint": JoinEndpoint()},
		"extensions":       map[string]any{spec.ExtensionName: []map[string]string{{"version": spec.ExtensionVersion}}},
	}
	b, _ := json.MarshalIndent(doc, "", "  ") // maps of strings always marshal
	return b
}

func (s *Site) servePoppyJSON(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	doc := s.poppy
	s.mu.Unlock()
	if doc == nil {
		doc = defaultPoppyJSON()
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(doc)
}

// serveJoin is POST /poppy/browser-session: it checks the credential, and
// on success sets the session cookie and answers 303 to return_to.
func (s *Site) serveJoin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormSize)
	j := Join{Extensions: r.Header.Get(spec.HeaderExtensions)}
	var returnTo, subject string
	reason := func() string {
		if err := r.ParseForm(); err != nil {
			return ReasonMalformed
		}
		tok := r.PostForm.Get("assertion")
		if tok == "" {
			return ReasonMissingAssertion
		}
		var c jwt.Claims
		var bc browserClaims
		reason := s.verify(tok, &c, &bc)
		j.JTI, j.Subject, j.SessionID = c.ID, c.Subject, bc.SessionID
		returnTo, subject = bc.ReturnTo, c.Subject
		return reason
	}()
	if reason == "" {
		s.mu.Lock()
		answer := s.joinAnswer
		s.mu.Unlock()
		if answer != JoinAnswerNoCookie && answer != JoinAnswerTemporaryRedirect {
			cookie := s.newSession(subject)
			http.SetCookie(w, &http.Cookie{
				Name: SessionCookie, Value: cookie, Path: "/",
				Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode,
			})
		}
		j.OK = true
		s.rec.addJoin(j)
		s.log.Debug("join", "ok", true, "answer", int(answer))
		switch answer {
		case JoinAnswerOK:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte("<!doctype html><title>Welcome</title><p>Welcome back.</p>"))
		case JoinAnswerOffSite:
			http.Redirect(w, r, "https://"+PartnerHost+"/landing", http.StatusSeeOther)
		case JoinAnswerTemporaryRedirect:
			http.Redirect(w, r, "https://"+PartnerHost+"/collect", http.StatusTemporaryRedirect)
		default:
			http.Redirect(w, r, returnTo, http.StatusSeeOther)
		}
		return
	}
	j.Reason = reason
	s.rec.addJoin(j)
	s.log.Debug("join", "ok", false, "reason", reason)
	http.Error(w, "join refused: "+reason, http.StatusBadRequest)
}

// verify checks tok and fills c and bc; it returns "" or a Reason. It marks
// the jti used only when everything else holds.
func (s *Site) verify(tok string, c *jwt.Claims, bc *browserClaims) string {
	parsed, err := jwt.ParseSigned(tok, []jose.SignatureAlgorithm{jose.EdDSA})
	if err != nil || len(parsed.Headers) != 1 {
		return ReasonMalformed
	}
	typ, _ := parsed.Headers[0].ExtraHeaders[jose.HeaderType].(string)
	if !browserJWTType(typ) {
		return ReasonBadType
	}
	s.mu.Lock()
	keys := s.keys
	s.mu.Unlock()
	verified := false
	for _, k := range keys {
		if parsed.Claims(k, c, bc) == nil {
			verified = true
			break
		}
	}
	if !verified {
		*c, *bc = jwt.Claims{}, browserClaims{}
		return ReasonBadSignature
	}
	if reason := checkClaims(c, bc, s.now()); reason != "" {
		return reason
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, used := s.jtis[c.ID]; used {
		return ReasonReplayed
	}
	s.jtis[c.ID] = struct{}{}
	return ""
}

// browserJWTType reports whether a JWS "typ" names the browser credential.
// RFC 7515 section 4.1.9: media type names compare case-insensitively, and
// a value without "/" means "application/" + value, so both
// "poppy-browser+jwt" and "application/poppy-browser+jwt" name it.
func browserJWTType(typ string) bool {
	t := strings.ToLower(typ)
	t = strings.TrimPrefix(t, "application/")
	return t == spec.BrowserJWTType
}

// checkClaims checks the claims of a verified credential at now; it returns
// "" or a Reason.
func checkClaims(c *jwt.Claims, bc *browserClaims, now time.Time) string {
	if !c.Audience.Contains(JoinEndpoint()) {
		return ReasonBadAudience
	}
	if c.IssuedAt == nil || c.Expiry == nil {
		return ReasonMissingTimes
	}
	iat, exp := c.IssuedAt.Time(), c.Expiry.Time()
	switch {
	case c.Issuer == "":
		return ReasonMissingIssuer
	case c.Subject == "":
		return ReasonMissingSubject
	case !exp.After(iat) || exp.Sub(iat) > maxLifetime:
		return ReasonLifetime
	case iat.After(now.Add(clockSkew)):
		return ReasonNotYetValid
	case c.NotBefore != nil && c.NotBefore.Time().After(now.Add(clockSkew)):
		return ReasonNotYetValid
	case !exp.After(now.Add(-clockSkew)):
		return ReasonExpired
	case c.ID == "":
		return ReasonMissingJTI
	case bc.SessionID == "":
		return ReasonMissingSession
	case !companyHTTPS(bc.ReturnTo):
		return ReasonBadReturnTo
	}
	return ""
}

// companyHTTPS reports whether raw is an https URL without user info on
// CompanyDomain or a subdomain of it, as [spec.MatchesURL] (the runtime's
// one host matcher) says: case, a trailing dot and the port ignored.
func companyHTTPS(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.User != nil {
		return false
	}
	return spec.MatchesURL(CompanyDomain, raw)
}

// newSession returns a fresh session cookie value for subject.
func (s *Site) newSession(subject string) string {
	v := rand.Text()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions[v] = subject
	return v
}

// signedIn returns the subject of r's valid session cookie, the Session's
// guest, and whether it has one.
func (s *Site) signedIn(r *http.Request) (string, bool) {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	subject, ok := s.sessions[c.Value]
	return subject, ok
}
