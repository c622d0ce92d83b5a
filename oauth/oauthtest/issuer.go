// Package oauthtest stands in for an OAuth 2.1 authorization server in
// tests: it serves its metadata (RFC 8414) and its JSON Web Key Set over
// loopback HTTP, and mints access tokens for any subject, audience and
// lifetime, and the bad ones an attacker would try (expired, for another
// audience, signed by a key it does not list, alg "none").
package oauthtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Issuer is a test authorization server. Its URL is its issuer id.
type Issuer struct {
	URL string
	t   testing.TB
	srv *httptest.Server

	mu     sync.Mutex
	keys   map[string]crypto.Signer // by kid
	listed []string                 // kids the JWKS lists, newest last
	// JWKSFetches counts the JWKS's fetches (rotation tests).
	fetches int
}

// New starts an issuer on loopback with one listed ES256 key ("k1"); it
// stops when the test ends.
func New(t testing.TB) *Issuer {
	t.Helper()
	is := &Issuer{t: t, keys: map[string]crypto.Signer{}}
	is.AddKey("k1", true)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{
			"issuer":                                is.URL,
			"authorization_endpoint":                is.URL + "/authorize",
			"token_endpoint":                        is.URL + "/token",
			"jwks_uri":                              is.URL + "/jwks",
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"},
		})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) {
		is.mu.Lock()
		is.fetches++
		set := jose.JSONWebKeySet{}
		for _, kid := range is.listed {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: is.keys[kid].Public(), KeyID: kid, Algorithm: string(jose.ES256), Use: "sig"})
		}
		is.mu.Unlock()
		writeJSON(w, set)
	})
	is.srv = httptest.NewServer(mux)
	is.URL = is.srv.URL
	t.Cleanup(is.srv.Close)
	return is
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// AddKey makes a new P-256 key kid; listed puts it in the JWKS (a key
// rotation), unlisted it is a key the issuer's metadata does not vouch for.
func (is *Issuer) AddKey(kid string, listed bool) {
	is.t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		is.t.Fatal(err)
	}
	is.mu.Lock()
	defer is.mu.Unlock()
	is.keys[kid] = k
	if listed {
		is.listed = append(is.listed, kid)
	}
}

// JWKSFetches is how many times the JWKS was fetched.
func (is *Issuer) JWKSFetches() int {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.fetches
}

// Token is what [Issuer.Mint] signs. Zero fields take defaults.
type Token struct {
	Sub      string
	Audience string   // required
	Scopes   []string // space-joined into scope
	// Issuer is the iss claim; "" means the issuer's URL.
	Issuer string
	// Expiry is exp; zero means ten minutes from now. NoExpiry leaves it out.
	Expiry   time.Time
	NoExpiry bool
	// KeyID signs with that key of the issuer's; "" means the newest listed.
	KeyID string
}

// Mint signs tok with ES256.
func (is *Issuer) Mint(tok Token) string {
	is.t.Helper()
	is.mu.Lock()
	kid := tok.KeyID
	if kid == "" {
		kid = is.listed[len(is.listed)-1]
	}
	key := is.keys[kid]
	is.mu.Unlock()
	if key == nil {
		is.t.Fatalf("oauthtest: no key %q", kid)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", kid))
	if err != nil {
		is.t.Fatal(err)
	}
	raw, err := jwt.Signed(signer).Claims(is.claims(tok)).Serialize()
	if err != nil {
		is.t.Fatal(err)
	}
	return raw
}

func (is *Issuer) claims(tok Token) map[string]any {
	now := time.Now()
	c := map[string]any{"iss": is.URL, "sub": tok.Sub, "aud": tok.Audience, "iat": now.Unix(),
		"client_id": "test-client", "jti": base64.RawURLEncoding.EncodeToString([]byte(now.String()))}
	if tok.Issuer != "" {
		c["iss"] = tok.Issuer
	}
	if len(tok.Scopes) > 0 {
		c["scope"] = strings.Join(tok.Scopes, " ")
	}
	exp := tok.Expiry
	if exp.IsZero() {
		exp = now.Add(10 * time.Minute)
	}
	if !tok.NoExpiry {
		c["exp"] = exp.Unix()
	}
	return c
}

// Unsigned is tok with alg "none" and no signature: what an attacker
// sends hoping the server skips the check.
func (is *Issuer) Unsigned(tok Token) string {
	is.t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			is.t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]string{"alg": "none", "typ": "at+jwt"}) + "." + enc(is.claims(tok)) + "."
}

// SwapSub is raw (one of this issuer's tokens) with its payload's sub
// replaced, the signature kept: a forgery the signature must catch.
func SwapSub(t testing.TB, raw, sub string) string {
	t.Helper()
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		t.Fatalf("oauthtest: not a compact JWS")
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	c["sub"] = sub
	if b, err = json.Marshal(c); err != nil {
		t.Fatal(err)
	}
	parts[1] = base64.RawURLEncoding.EncodeToString(b)
	return strings.Join(parts, ".")
}

// Bearer is an http.RoundTripper that adds "Authorization: Bearer" with
// the token Token returns (which may change between requests) to every
// request, over Base (nil means http.DefaultTransport).
type Bearer struct {
	Token func() string
	Base  http.RoundTripper
}

// RoundTrip adds the header to a clone of r.
func (b *Bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.Token())
	base := b.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r)
}
