package session

import (
	"crypto/ed25519"
	"crypto/rand"
	"regexp"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/go-cmp/cmp"
)

func TestKeySigner(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	k := &KeySigner{Key: priv, Issuer: "https://agent.example", Subject: "user-1", SessionID: "ses_1", Now: func() time.Time { return now }}
	req := CredentialRequest{
		Endpoint: "https://airline.test/poppy/browser-session",
		ReturnTo: "https://airline.test/bookings/bkg_4Rt9",
		Domain:   "airline.test",
	}
	cred, err := k.Credential(testContext(t), req)
	if err != nil {
		t.Fatalf("Credential(): %v", err)
	}

	tok, err := jwt.ParseSigned(cred.Reveal(), []jose.SignatureAlgorithm{jose.EdDSA})
	if err != nil {
		t.Fatalf("parsing credential: %v", err)
	}
	if len(tok.Headers) != 1 {
		t.Fatalf("credential has %d signatures, want 1", len(tok.Headers))
	}
	h := tok.Headers[0]
	if diff := cmp.Diff([]any{"EdDSA", "poppy-browser+jwt"}, []any{h.Algorithm, h.ExtraHeaders[jose.HeaderType]}); diff != "" {
		t.Errorf("header alg, typ (-want +got):\n%s", diff)
	}
	var claims jwt.Claims
	var extra browserClaims
	if err := tok.Claims(pub, &claims, &extra); err != nil {
		t.Fatalf("verifying credential with the public key: %v", err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(claims.ID) {
		t.Errorf("jti = %q, want 128 random bits in hex", claims.ID)
	}
	want := jwt.Claims{
		Issuer:   "https://agent.example",
		Subject:  "user-1",
		Audience: jwt.Audience{req.Endpoint},
		IssuedAt: jwt.NewNumericDate(now),
		Expiry:   jwt.NewNumericDate(now.Add(60 * time.Second)),
		ID:       claims.ID,
	}
	if diff := cmp.Diff(want, claims); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(browserClaims{SessionID: "ses_1", ReturnTo: req.ReturnTo}, extra); diff != "" {
		t.Errorf("session_id, return_to (-want +got):\n%s", diff)
	}
	if got := claims.Expiry.Time().Sub(claims.IssuedAt.Time()); got != 60*time.Second {
		t.Errorf("exp - iat = %v, want 60s", got)
	}

	other, _, _ := ed25519.GenerateKey(rand.Reader)
	if err := tok.Claims(other, &jwt.Claims{}); err == nil {
		t.Error("credential verified with another key")
	}
	again, err := k.Credential(testContext(t), req)
	if err != nil {
		t.Fatal(err)
	}
	tok2, err := jwt.ParseSigned(again.Reveal(), []jose.SignatureAlgorithm{jose.EdDSA})
	if err != nil {
		t.Fatal(err)
	}
	var claims2 jwt.Claims
	if err := tok2.Claims(pub, &claims2); err != nil {
		t.Fatal(err)
	}
	if claims2.ID == claims.ID {
		t.Errorf("two credentials share jti %q", claims.ID)
	}
}

func TestKeySignerRefuses(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	req := CredentialRequest{Endpoint: "https://airline.test/poppy/browser-session"}
	tests := []struct {
		name string
		k    *KeySigner
		req  CredentialRequest
		want string
	}{
		{"no key", &KeySigner{Issuer: "i", Subject: "s", SessionID: "x"}, req, "signing credential: no ed25519 key"},
		{"no session", &KeySigner{Key: priv, Issuer: "i", Subject: "s"}, req, "signing credential: issuer, subject and session id are required"},
		{"no endpoint", &KeySigner{Key: priv, Issuer: "i", Subject: "s", SessionID: "x"}, CredentialRequest{}, "signing credential: no endpoint to address it to"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.k.Credential(testContext(t), tc.req)
			if err == nil || err.Error() != tc.want {
				t.Errorf("Credential() error = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestNewDemoSigner(t *testing.T) {
	k, pub, err := NewDemoSigner()
	if err != nil {
		t.Fatal(err)
	}
	cred, err := k.Credential(testContext(t), CredentialRequest{Endpoint: "https://airline.test/poppy/browser-session", ReturnTo: "https://airline.test/"})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.ParseSigned(cred.Reveal(), []jose.SignatureAlgorithm{jose.EdDSA})
	if err != nil {
		t.Fatal(err)
	}
	var extra browserClaims
	if err := tok.Claims(pub, &extra); err != nil {
		t.Fatalf("demo credential does not verify with the demo public key: %v", err)
	}
	if extra.SessionID == "" {
		t.Error("demo credential has no session_id")
	}
}
