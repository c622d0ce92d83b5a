package ui

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
)

// Names the test identity provider signs.
const (
	testIssuer   = "https://idp.example"
	testAudience = "poppy-live"
	testUser     = "alice@example.com"
)

// testIDP is an identity provider for tests: keys made in the test, its
// JWKS served over loopback HTTP (counting fetches), and tokens signed on
// demand.
type testIDP struct {
	t   testing.TB
	srv *httptest.Server

	mu      sync.Mutex
	keys    map[string]crypto.Signer // by kid
	listed  []string                 // the kids the JWKS lists
	fetches atomic.Int32
}

func newTestIDP(t testing.TB) *testIDP {
	t.Helper()
	p := &testIDP{t: t, keys: map[string]crypto.Signer{}}
	p.addKey("rsa-1", mustRSA(t), true)
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		p.fetches.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(p.jwks())
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func mustRSA(t testing.TB) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// addKey makes kid a key of the provider; listed puts it in the JWKS.
func (p *testIDP) addKey(kid string, k crypto.Signer, listed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keys[kid] = k
	if listed {
		p.listed = append(p.listed, kid)
	}
}

func (p *testIDP) jwks() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	var set jose.JSONWebKeySet
	for _, kid := range p.listed {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: p.keys[kid].Public(), KeyID: kid, Use: "sig"})
	}
	b, err := json.Marshal(set)
	if err != nil {
		p.t.Fatal(err)
	}
	return b
}

// claims are a good token's claims at now, for testUser.
func goodClaims(now time.Time) jwt.Claims {
	return jwt.Claims{Issuer: testIssuer, Subject: testUser, Audience: jwt.Audience{testAudience},
		IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(5 * time.Minute))}
}

// sign signs c with the provider's key kid.
func (p *testIDP) sign(kid string, c jwt.Claims) string {
	p.mu.Lock()
	k := p.keys[kid]
	p.mu.Unlock()
	alg := jose.RS256
	if _, ok := k.(*ecdsa.PrivateKey); ok {
		alg = jose.ES256
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: k, KeyID: kid}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		p.t.Fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(c).Serialize()
	if err != nil {
		p.t.Fatal(err)
	}
	return tok
}

// verifier is an Identity for the provider, for testUser, on clock.
func (p *testIDP) verifier(t testing.TB, clock func() time.Time) *Identity {
	t.Helper()
	id, err := NewIdentity(&IdentityOptions{Header: "X-Poppy-Identity", JWKS: p.srv.URL + "/jwks.json", Issuer: testIssuer,
		Audience: testAudience, Subject: testUser, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func identityRequest(values ...string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/live", nil)
	for _, v := range values {
		r.Header.Add("X-Poppy-Identity", v)
	}
	return r
}

// unsigned is a token with alg "none" and the good claims.
func unsigned(c jwt.Claims) string {
	h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
	b, _ := json.Marshal(c)
	return h + "." + base64.RawURLEncoding.EncodeToString(b) + "."
}

// hmacWithPublicKey is a token signed HS256 with the provider's public
// key (PEM and raw modulus) as the secret, naming its kid: the key
// confusion attack on verifiers that let the token choose the algorithm.
func (p *testIDP) hmacWithPublicKey(t testing.TB, kid string, c jwt.Claims, rawModulus bool) string {
	p.mu.Lock()
	pub := p.keys[kid].Public().(*rsa.PublicKey)
	p.mu.Unlock()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	secret := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	if rawModulus {
		secret = pub.N.Bytes()
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: jose.JSONWebKey{Key: secret, KeyID: kid}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(c).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestIdentityVerify: the operator's signed identity is accepted only
// when signed by a key of the JWKS with an allowed algorithm, for the
// issuer, the audience and the session's User, within its times (with
// the skew); every refusal is one line naming the check, without the
// token.
func TestIdentityVerify(t *testing.T) {
	idp := newTestIDP(t)
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	id := idp.verifier(t, func() time.Time { return now })
	idp.addKey("stranger", mustRSA(t), false) // a key the JWKS does not list
	with := func(f func(*jwt.Claims)) jwt.Claims {
		c := goodClaims(now)
		f(&c)
		return c
	}
	good := idp.sign("rsa-1", goodClaims(now))
	forged := strings.Split(good, ".")
	forged[1] = base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"` + testIssuer + `","sub":"mallory","aud":"` + testAudience + `","exp":9999999999}`))
	for _, tc := range []struct {
		name   string
		values []string
		want   string // "" accepts; else a part of the one-line reason
	}{
		{"good", []string{good}, ""},
		{"good, as a bearer", []string{"Bearer " + good}, ""},
		{"within the skew after expiry", []string{idp.sign("rsa-1", with(func(c *jwt.Claims) { c.Expiry = jwt.NewNumericDate(now.Add(-10 * time.Second)) }))}, ""},
		{"expired", []string{idp.sign("rsa-1", with(func(c *jwt.Claims) { c.Expiry = jwt.NewNumericDate(now.Add(-time.Minute)) }))}, "expired"},
		{"not yet valid", []string{idp.sign("rsa-1", with(func(c *jwt.Claims) { c.NotBefore = jwt.NewNumericDate(now.Add(2 * time.Minute)) }))}, "not valid yet"},
		{"issued in the future", []string{idp.sign("rsa-1", with(func(c *jwt.Claims) { c.IssuedAt = jwt.NewNumericDate(now.Add(2 * time.Minute)) }))}, "future"},
		{"no expiry", []string{idp.sign("rsa-1", with(func(c *jwt.Claims) { c.Expiry = nil }))}, "no expiry"},
		{"wrong issuer", []string{idp.sign("rsa-1", with(func(c *jwt.Claims) { c.Issuer = "https://evil.example" }))}, "issuer"},
		{"wrong audience", []string{idp.sign("rsa-1", with(func(c *jwt.Claims) { c.Audience = jwt.Audience{"another-app"} }))}, "audience"},
		{"wrong subject", []string{idp.sign("rsa-1", with(func(c *jwt.Claims) { c.Subject = "mallory@example.com" }))}, "another user"},
		{"no subject", []string{idp.sign("rsa-1", with(func(c *jwt.Claims) { c.Subject = "" }))}, "another user"},
		{"alg none", []string{unsigned(goodClaims(now))}, "allowed algorithm"},
		{"HS256 with the public key's PEM", []string{idp.hmacWithPublicKey(t, "rsa-1", goodClaims(now), false)}, "allowed algorithm"},
		{"HS256 with the public key's modulus", []string{idp.hmacWithPublicKey(t, "rsa-1", goodClaims(now), true)}, "allowed algorithm"},
		{"signed by a key not listed", []string{idp.sign("stranger", goodClaims(now))}, "does not list"},
		{"claims changed after signing", []string{strings.Join(forged, ".")}, "signature"},
		{"two values", []string{good, good}, "one signed identity"},
		{"none", nil, "one signed identity"},
		{"empty", []string{" "}, "one signed identity"},
		{"garbage", []string{"not a token"}, "allowed algorithm"},
		{"three garbage parts", []string{"a.b.c"}, "allowed algorithm"},
		{"too long", []string{strings.Repeat("a", maxIdentityLen+1)}, "too long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub, err := id.Verify(identityRequest(tc.values...))
			if tc.want == "" {
				if err != nil || sub != testUser {
					t.Fatalf("Verify = %q, %v; want %s", sub, err, testUser)
				}
				if h, ok := id.Proves(identityRequest(tc.values...)); !ok || h != SubjectHash(testUser) || strings.Contains(h, testUser) {
					t.Errorf("Proves = %q, %v", h, ok)
				}
				return
			}
			if err == nil {
				t.Fatalf("Verify accepted it as %q", sub)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
				t.Errorf("Verify error %q, want one line about %q", msg, tc.want)
			}
			for _, v := range tc.values {
				if len(v) > 20 && strings.Contains(msg, v[:20]) {
					t.Errorf("the error holds the token: %q", msg)
				}
			}
		})
	}
	// ForSubject: another session's User, the same keys.
	if _, err := id.ForSubject("bob@example.com").Verify(identityRequest(good)); err == nil {
		t.Error("alice's identity verified for bob's session")
	}
	bob := idp.sign("rsa-1", with(func(c *jwt.Claims) { c.Subject = "bob@example.com" }))
	if sub, err := id.ForSubject("bob@example.com").Verify(identityRequest(bob)); err != nil || sub != "bob@example.com" {
		t.Errorf("bob's session: %q, %v", sub, err)
	}
}

// TestIdentityKeyRotation: a token naming a key the cached JWKS lacks
// loads the set again (the provider rotated its keys), at most once per
// refresh interval, so tokens with made-up key ids cannot make the
// runtime fetch the set for each request.
func TestIdentityKeyRotation(t *testing.T) {
	idp := newTestIDP(t)
	var mu sync.Mutex
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	id := idp.verifier(t, clock)
	if _, err := id.Verify(identityRequest(idp.sign("rsa-1", goodClaims(clock())))); err != nil {
		t.Fatal(err)
	}
	if n := idp.fetches.Load(); n != 1 {
		t.Fatalf("%d fetches of the JWKS for the first token, want 1", n)
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	idp.addKey("ec-2", ec, false)
	rotated := idp.sign("ec-2", goodClaims(clock()))
	if _, err := id.Verify(identityRequest(rotated)); err == nil || !strings.Contains(err.Error(), "does not list") {
		t.Fatalf("a key the provider does not list yet: %v", err)
	}
	idp.addKey("ec-2", ec, true) // the rotation
	for range 5 {
		if _, err := id.Verify(identityRequest(idp.sign("ec-2", goodClaims(clock())))); err == nil {
			t.Fatal("the set was loaded again within the refresh interval")
		}
	}
	if n := idp.fetches.Load(); n != 1 {
		t.Errorf("%d fetches after six tokens with an unknown key id within the refresh interval, want 1", n)
	}
	advance(DefaultJWKSRefresh)
	if sub, err := id.Verify(identityRequest(idp.sign("ec-2", goodClaims(clock())))); err != nil || sub != testUser {
		t.Fatalf("after the rotation: %q, %v", sub, err)
	}
	if _, err := id.Verify(identityRequest(idp.sign("rsa-1", goodClaims(clock())))); err != nil {
		t.Errorf("the first key after the rotation: %v", err)
	}
	if n := idp.fetches.Load(); n != 2 {
		t.Errorf("%d fetches, want 2: one for the rotation", n)
	}
}

// TestIdentityJWKSSources: the key set comes from an https URL (the
// client given), a loopback http URL, or a file; http elsewhere, a
// symmetric key set and a missing file are refused with one line.
func TestIdentityJWKSSources(t *testing.T) {
	idp := newTestIDP(t)
	now := time.Now()
	tok := idp.sign("rsa-1", goodClaims(now))
	opts := func(jwks string) *IdentityOptions {
		return &IdentityOptions{Header: "X-Poppy-Identity", JWKS: jwks, Issuer: testIssuer, Audience: testAudience, Subject: testUser}
	}
	tlsIDP := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(idp.jwks()) }))
	defer tlsIDP.Close()
	o := opts(tlsIDP.URL + "/keys")
	o.HTTPClient = tlsIDP.Client()
	file := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(file, idp.jwks(), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]*IdentityOptions{"https": o, "file": opts(file), "loopback http": opts(idp.srv.URL)} {
		id, err := NewIdentity(o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := id.Verify(identityRequest(tok)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	symmetric := filepath.Join(t.TempDir(), "oct.json")
	if err := os.WriteFile(symmetric, []byte(`{"keys":[{"kty":"oct","kid":"rsa-1","k":"c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		o    *IdentityOptions
		want string
	}{
		{"http to another host", opts("http://idp.example/jwks.json"), "https URL"},
		{"ftp", opts("ftp://idp.example/jwks.json"), "https URL"},
		{"missing file", opts(filepath.Join(t.TempDir(), "nothing.json")), "reading --live-identity-jwks"},
		{"symmetric keys only", opts(symmetric), "no public signing key"},
		{"no issuer", &IdentityOptions{Header: "X", JWKS: file, Audience: "a", Subject: "s"}, "--live-identity-issuer"},
		{"no audience", &IdentityOptions{Header: "X", JWKS: file, Issuer: "i", Subject: "s"}, "--live-identity-audience"},
		{"no user", &IdentityOptions{Header: "X", JWKS: file, Issuer: "i", Audience: "a"}, "--user"},
		{"no jwks", &IdentityOptions{Header: "X", Issuer: "i", Audience: "a", Subject: "s"}, "--live-identity-jwks"},
		{"bad header name", &IdentityOptions{Header: "X: y", JWKS: file, Issuer: "i", Audience: "a", Subject: "s"}, "header name"},
		{"skew too large", &IdentityOptions{Header: "X", JWKS: file, Issuer: "i", Audience: "a", Subject: "s", Skew: time.Hour}, "--live-identity-skew"},
	} {
		_, err := NewIdentity(tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line about %q", tc.name, err, tc.want)
		}
	}
}

// FuzzIdentityVerify: no header value makes Verify panic, accept another
// subject, or echo the value in its error.
func FuzzIdentityVerify(f *testing.F) {
	idp := newTestIDP(f)
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	id := idp.verifier(f, func() time.Time { return now })
	f.Add(unsigned(goodClaims(now)))
	f.Add("a.b.c")
	f.Add("Bearer x")
	f.Add(idp.sign("rsa-1", goodClaims(now)))
	f.Fuzz(func(t *testing.T, v string) {
		if strings.ContainsAny(v, "\r\n") {
			return // no header value holds one
		}
		sub, err := id.Verify(identityRequest(v))
		if err == nil && sub != testUser {
			t.Fatalf("accepted %q as %q", v, sub)
		}
		if err != nil && len(v) > 24 && strings.Contains(err.Error(), v) {
			t.Fatalf("the error %q holds the value", err)
		}
	})
}

// TestIdentityProofAfterGuard: a request the live view's guard let
// through with the User's verified identity names, for the take, the
// subject's hash (never the subject); without UserIdentity nothing is
// proved, and a request refused never reaches the view.
func TestIdentityProofAfterGuard(t *testing.T) {
	idp := newTestIDP(t)
	ctl := control.New(nil)
	l, _ := startLive(t, ctl, nil, func(l *Live) { l.identity = idp.verifier(t, nil) })
	var got string
	var proved, reached bool
	h := l.guard(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		reached = true
		got, proved = l.IdentityProof(r)
	}))
	r := identityRequest(idp.sign("rsa-1", goodClaims(time.Now())))
	r.Host = liveAddr(l)
	h.ServeHTTP(httptest.NewRecorder(), r)
	if !reached || !proved || got != SubjectHash(testUser) || strings.Contains(got, testUser) {
		t.Errorf("IdentityProof after the guard = %q, %v (reached %v), want %s", got, proved, reached, SubjectHash(testUser))
	}
	reached = false
	w := httptest.NewRecorder()
	bare := identityRequest()
	bare.Host = liveAddr(l)
	h.ServeHTTP(w, bare)
	if reached || w.Code != http.StatusForbidden {
		t.Errorf("a request without the identity: reached %v, %d", reached, w.Code)
	}
	plain, err := NewLive(&LiveOptions{Control: ctl, Page: func() *browser.Page { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := plain.IdentityProof(r); ok {
		t.Error("a live view without UserIdentity proved an identity")
	}
}

// TestIdentityJWKSDown: while the identity provider's keys cannot be had,
// every identity is refused saying so; once they can, the next request
// loads them (no wait for the refresh interval when no key is known).
func TestIdentityJWKSDown(t *testing.T) {
	idp := newTestIDP(t)
	var down atomic.Bool
	down.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write(idp.jwks())
	}))
	defer srv.Close()
	id, err := NewIdentity(&IdentityOptions{Header: "X-Poppy-Identity", JWKS: srv.URL, Issuer: testIssuer, Audience: testAudience, Subject: testUser})
	if err != nil {
		t.Fatal(err)
	}
	tok := idp.sign("rsa-1", goodClaims(time.Now()))
	if _, err := id.Verify(identityRequest(tok)); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("with the keys down: %v", err)
	}
	down.Store(false)
	if _, err := id.Verify(identityRequest(tok)); err != nil {
		t.Fatalf("with the keys back: %v", err)
	}
}
