package session

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/poppy-browser/poppy-browser/spec"
)

// CredentialLifetime is how long a credential from [KeySigner] is valid:
// exp is iat plus this (draft 0.1 allows at most 60 s).
const CredentialLifetime = 60 * time.Second

// KeySigner is a [CredentialSource] that signs the browser-join credential
// itself with an Ed25519 key, in the draft 0.1 shape: a JWT with header
// typ "poppy-browser+jwt" and alg EdDSA, and claims iss, sub, aud (the
// endpoint), session_id, return_to, iat, exp (iat + 60 s) and a random jti.
//
// It stands in for a Personal Agent that holds the Session: the demo, and
// tests. The Company must trust the public key. Issuer, Subject and
// SessionID must be set. Now nil means [time.Now]. A KeySigner is safe
// for concurrent use if Now is.
type KeySigner struct {
	Key       ed25519.PrivateKey
	Issuer    string
	Subject   string
	SessionID string
	Now       func() time.Time
}

// browserClaims are the draft 0.1 claims beyond the registered ones.
type browserClaims struct {
	SessionID string `json:"session_id"`
	ReturnTo  string `json:"return_to"`
}

// Credential signs a fresh credential for req.
func (k *KeySigner) Credential(ctx context.Context, req CredentialRequest) (Secret, error) {
	if err := ctx.Err(); err != nil {
		return Secret{}, fmt.Errorf("signing credential: %w", err)
	}
	if len(k.Key) != ed25519.PrivateKeySize {
		return Secret{}, errors.New("signing credential: no ed25519 key")
	}
	if k.Issuer == "" || k.Subject == "" || k.SessionID == "" {
		return Secret{}, errors.New("signing credential: issuer, subject and session id are required")
	}
	if req.Endpoint == "" {
		return Secret{}, errors.New("signing credential: no endpoint to address it to")
	}
	now := time.Now
	if k.Now != nil {
		now = k.Now
	}
	iat := now().Truncate(time.Second)
	jti, err := randomHex(16)
	if err != nil {
		return Secret{}, fmt.Errorf("signing credential: %w", err)
	}
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: jose.EdDSA, Key: k.Key},
		(&jose.SignerOptions{}).WithType(spec.BrowserJWTType),
	)
	if err != nil {
		return Secret{}, fmt.Errorf("signing credential: %w", err)
	}
	token, err := jwt.Signed(signer).
		Claims(jwt.Claims{
			Issuer:   k.Issuer,
			Subject:  k.Subject,
			Audience: jwt.Audience{req.Endpoint},
			IssuedAt: jwt.NewNumericDate(iat),
			Expiry:   jwt.NewNumericDate(iat.Add(CredentialLifetime)),
			ID:       jti,
		}).
		Claims(browserClaims{SessionID: k.SessionID, ReturnTo: req.ReturnTo}).
		Serialize()
	if err != nil {
		return Secret{}, fmt.Errorf("signing credential: %w", err)
	}
	return NewSecret(token), nil
}

// NewDemoSigner returns a [KeySigner] with a fresh ephemeral key, for the
// demo, and the public key the demo Company must trust.
func NewDemoSigner() (*KeySigner, ed25519.PublicKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("making demo signer: %w", err)
	}
	sid, err := randomHex(16)
	if err != nil {
		return nil, nil, fmt.Errorf("making demo signer: %w", err)
	}
	return &KeySigner{
		Key:       priv,
		Issuer:    "https://agent.poppy-browser.invalid",
		Subject:   "demo-user",
		SessionID: "ses_" + sid,
	}, pub, nil
}

// randomHex returns n random bytes in hex.
func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("reading random bytes: %w", err)
	}
	return hex.EncodeToString(b), nil
}
