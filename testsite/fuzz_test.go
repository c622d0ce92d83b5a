package testsite

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// FuzzJoinCredential signs fuzzed headers and claims with a trusted key and
// holds the demo Company's check to the protocol: whatever it accepts has
// the right typ, iss, sub, aud, session_id and jti, lives more than 0 and at
// most 60 s, is valid now within the skew, and returns to the Company over
// https. Raw fuzzed tokens must be refused without a panic.
func FuzzJoinCredential(f *testing.F) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	good := func(edit func(map[string]any)) []byte {
		c := map[string]any{
			"iss": "https://agent.test", "sub": "u", "aud": JoinEndpoint(), "jti": "j", "session_id": "s",
			"return_to": "https://airline.test/", "iat": now.Unix(), "exp": now.Unix() + 60,
		}
		if edit != nil {
			edit(c)
		}
		b, _ := json.Marshal(c)
		return b
	}
	f.Add("poppy-browser+jwt", good(nil), "")
	f.Add("Application/Poppy-Browser+JWT", good(func(c map[string]any) { c["nbf"] = now.Unix() + 4 }), "")
	f.Add("poppy-browser+jwt", good(func(c map[string]any) { c["aud"] = []string{"x", JoinEndpoint()} }), "")
	f.Add("poppy-browser+jwt", good(func(c map[string]any) { delete(c, "sub") }), "")
	f.Add("poppy-browser+jwt", good(func(c map[string]any) { c["exp"] = now.Unix() }), "")
	f.Add("poppy-browser+jwt", good(func(c map[string]any) { c["return_to"] = "https://airline.test.:1/" }), "")
	f.Add("jwt", good(nil), "eyJhbGciOiJub25lIn0.e30.")
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		f.Fatal(err)
	}
	s, err := New(&Options{TrustedKeys: []ed25519.PublicKey{pub}, Now: func() time.Time { return now }})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, typ string, payload []byte, raw string) {
		if raw != "" {
			var c jwt.Claims
			var bc browserClaims
			if reason := s.verify(raw, &c, &bc); reason == "" {
				t.Fatalf("an unsigned fuzzed token was accepted: %q", raw)
			}
		}
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.EdDSA, Key: priv},
			(&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
		if err != nil {
			return
		}
		obj, err := signer.Sign(payload)
		if err != nil {
			return
		}
		tok, err := obj.CompactSerialize()
		if err != nil {
			return
		}
		var c jwt.Claims
		var bc browserClaims
		if s.verify(tok, &c, &bc) != "" {
			return
		}
		lower := strings.ToLower(typ)
		switch {
		case lower != "poppy-browser+jwt" && lower != "application/poppy-browser+jwt":
			t.Fatalf("accepted typ %q", typ)
		case c.Issuer == "" || c.Subject == "" || c.ID == "" || bc.SessionID == "":
			t.Fatalf("accepted claims without iss, sub, jti or session_id: %s", payload)
		case !c.Audience.Contains(JoinEndpoint()):
			t.Fatalf("accepted audience %v", c.Audience)
		case c.IssuedAt == nil || c.Expiry == nil:
			t.Fatalf("accepted claims without iat or exp: %s", payload)
		}
		iat, exp := c.IssuedAt.Time(), c.Expiry.Time()
		if !exp.After(iat) || exp.Sub(iat) > maxLifetime {
			t.Fatalf("accepted a lifetime of %s: %s", exp.Sub(iat), payload)
		}
		if iat.After(now.Add(clockSkew)) || !exp.After(now.Add(-clockSkew)) ||
			c.NotBefore != nil && c.NotBefore.Time().After(now.Add(clockSkew)) {
			t.Fatalf("accepted a credential not valid now: %s", payload)
		}
		if !strings.HasPrefix(strings.ToLower(bc.ReturnTo), "https://") || !companyHTTPS(bc.ReturnTo) {
			t.Fatalf("accepted return_to %q", bc.ReturnTo)
		}
	})
}
