package ui

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/poppy-browser/poppy-browser/internal/jwtverify"
)

// IdentityOptions configures the check of the operator's signed identity
// of the User on every live view request: a JWT that the operator's
// authenticating proxy in front sets in a header, verified against the
// identity provider's keys. Nothing here is a secret.
type IdentityOptions struct {
	// Header is the request header holding the JWT (compact form, an
	// optional "Bearer " before it). Required.
	Header string
	// JWKS is where the identity provider's public keys are: an https URL
	// (or http on a loopback host), fetched when first needed and again,
	// at most every JWKSRefresh, when a token names a key it lacks (key
	// rotation); or a file holding the JSON Web Key Set, read the same
	// way. Required.
	JWKS string
	// Issuer is the iss every token must name. Required.
	Issuer string
	// Audience must be among every token's aud. Required.
	Audience string
	// Subject is the sub every token must name: the session's User
	// ([Identity.ForSubject] gives another session its own). Required
	// unless PerSession.
	Subject string
	// PerSession says each session's User is its own (over --http with
	// OAuth, the subject of the token that began it): Subject may be
	// empty, and a verifier not made for a session by ForSubject accepts
	// no identity.
	PerSession bool
	// Skew is the leeway on exp, nbf and iat, for clocks that differ.
	// Zero means [DefaultIdentitySkew]; at most [MaxIdentitySkew].
	Skew time.Duration
	// JWKSRefresh is the least time between two loads of the key set for
	// an unknown key id. Zero means [DefaultJWKSRefresh].
	JWKSRefresh time.Duration
	// HTTPClient fetches a JWKS URL. Nil means a client with a 10 s
	// timeout that follows no redirect.
	HTTPClient *http.Client
	// Now is the clock. Nil means time.Now.
	Now func() time.Time
}

// Defaults and bounds of [IdentityOptions].
const (
	DefaultIdentitySkew = 30 * time.Second
	MaxIdentitySkew     = 5 * time.Minute
	DefaultJWKSRefresh  = jwtverify.DefaultRefresh
)

// maxIdentityLen is the longest identity header read.
const maxIdentityLen = jwtverify.MaxTokenLen

// Identity verifies the operator's signed identity of the User on a live
// view request. Make it with [NewIdentity]; it is safe for concurrent use,
// and the views of it that [Identity.ForSubject] gives share its keys.
type Identity struct {
	header, issuer, audience, subject string
	skew                              time.Duration
	now                               func() time.Time
	keys                              *jwtverify.Keys
}

// CheckIdentity reports, without I/O, what is missing or wrong in opts,
// in one line naming the flag.
func CheckIdentity(opts *IdentityOptions) error {
	switch {
	case opts.Header == "" || strings.ContainsAny(opts.Header, " \t:\r\n=") || http.CanonicalHeaderKey(opts.Header) == "":
		return fmt.Errorf("--live-identity-header %q: want a header name, like X-Poppy-Identity", opts.Header)
	case opts.JWKS == "":
		return errors.New("--live-identity-header needs --live-identity-jwks URL|FILE: the identity provider's public keys")
	case opts.Issuer == "":
		return errors.New("--live-identity-header needs --live-identity-issuer: the iss the identity provider signs")
	case opts.Audience == "":
		return errors.New("--live-identity-header needs --live-identity-audience: the aud the identity provider signs for this runtime")
	case opts.Subject == "" && !opts.PerSession:
		return errors.New("--live-identity-header needs --user SUB: the subject of the User whose identity takes control")
	case opts.Skew < 0 || opts.Skew > MaxIdentitySkew:
		return fmt.Errorf("--live-identity-skew %s: want between 0 and %s", opts.Skew, MaxIdentitySkew)
	}
	_, err := jwtverify.SourceURL(opts.JWKS, "--live-identity-jwks")
	return err
}

// NewIdentity checks opts and prepares the verifier. A JWKS file is read
// now, so a missing or bad file is an error at once; a URL is fetched at
// the first request.
func NewIdentity(opts *IdentityOptions) (*Identity, error) {
	if opts == nil {
		return nil, errors.New("the live view's identity: no options")
	}
	if err := CheckIdentity(opts); err != nil {
		return nil, err
	}
	id := &Identity{header: http.CanonicalHeaderKey(opts.Header), issuer: opts.Issuer, audience: opts.Audience,
		subject: opts.Subject, skew: opts.Skew, now: opts.Now}
	if id.skew == 0 {
		id.skew = DefaultIdentitySkew
	}
	if id.now == nil {
		id.now = time.Now
	}
	ks, err := jwtverify.New(&jwtverify.Options{Source: opts.JWKS, Name: "--live-identity-jwks", Token: "the identity",
		Refresh: opts.JWKSRefresh, HTTPClient: opts.HTTPClient, Now: id.now})
	if err != nil {
		return nil, err
	}
	id.keys = ks
	return id, nil
}

// ForSubject is a verifier like id, sharing its keys, whose tokens must
// name subject: for a session whose User is another (over --http, the
// subject that started the MCP session).
func (id *Identity) ForSubject(subject string) *Identity {
	c := *id
	c.subject = subject
	return &c
}

// Subject is the sub every token must name.
func (id *Identity) Subject() string { return id.subject }

// Verify checks the identity r carries and returns its subject, which is
// the one id expects. The error says, in one line, which check failed; it
// never holds the token.
func (id *Identity) Verify(r *http.Request) (string, error) {
	sub, _, err := id.verifyUntil(r)
	return sub, err
}

// verifyUntil is Verify, with the moment the identity stops proving
// anything by id's clock: its expiry plus the allowed skew.
func (id *Identity) verifyUntil(r *http.Request) (string, time.Time, error) {
	vals := r.Header.Values(id.header)
	if len(vals) != 1 || strings.TrimSpace(vals[0]) == "" {
		return "", time.Time{}, fmt.Errorf("no %s header with one signed identity", id.header)
	}
	raw := strings.TrimSpace(vals[0])
	if len(raw) > 7 && strings.EqualFold(raw[:7], "bearer ") {
		raw = strings.TrimSpace(raw[7:])
	}
	if len(raw) > maxIdentityLen {
		return "", time.Time{}, errors.New("the identity is too long")
	}
	var claims jwt.Claims
	if err := id.keys.Verify(r.Context(), raw, &claims); err != nil {
		return "", time.Time{}, err
	}
	sub, err := id.checkClaims(claims)
	if err != nil {
		return "", time.Time{}, err
	}
	return sub, claims.Expiry.Time().Add(id.skew), nil
}

// checkClaims checks verified claims: issuer, audience, the times, and
// the subject.
func (id *Identity) checkClaims(c jwt.Claims) (string, error) {
	if c.Expiry == nil {
		return "", errors.New("the identity has no expiry (exp)")
	}
	err := c.ValidateWithLeeway(jwt.Expected{Issuer: id.issuer, AnyAudience: jwt.Audience{id.audience}, Time: id.now()}, id.skew)
	switch {
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return "", errors.New("the identity's issuer (iss) is not --live-identity-issuer")
	case errors.Is(err, jwt.ErrInvalidAudience):
		return "", errors.New("the identity's audience (aud) does not include --live-identity-audience")
	case errors.Is(err, jwt.ErrExpired):
		return "", errors.New("the identity has expired (exp)")
	case errors.Is(err, jwt.ErrNotValidYet):
		return "", errors.New("the identity is not valid yet (nbf)")
	case errors.Is(err, jwt.ErrIssuedInTheFuture):
		return "", errors.New("the identity is issued in the future (iat)")
	case err != nil:
		return "", errors.New("the identity's claims are not valid")
	}
	if c.Subject == "" || c.Subject != id.subject {
		return "", errors.New("the identity is of another user than this session's (sub)")
	}
	return c.Subject, nil
}

// SubjectHash is how a proof of presence names a verified subject: its
// SHA-256, so the audit log holds no one's address.
func SubjectHash(subject string) string {
	sum := sha256.Sum256([]byte(subject))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// expired reports whether until, from verifyUntil, has passed by id's
// clock.
func (id *Identity) expired(until time.Time) bool { return !id.now().Before(until) }

// Proves reports whether r carries the identity of id's subject, and then
// that subject's hash ([SubjectHash]): the proof of presence "identity"
// of the view r opens.
func (id *Identity) Proves(r *http.Request) (subjectHash string, ok bool) {
	sub, err := id.Verify(r)
	if err != nil {
		return "", false
	}
	return SubjectHash(sub), true
}
