package session

import (
	"context"

	"github.com/poppy-browser/poppy-browser/internal/secret"
)

// Secret is a credential: the browser join's signed JWT. It is the
// program's one redacting type ([secret.Value]): it prints, formats, logs and
// marshals as "[redacted]"; only Reveal returns the value. The zero value is
// the empty secret.
type Secret = secret.Value

// NewSecret returns s as a [Secret].
func NewSecret(s string) Secret { return secret.New(s) }

// CredentialRequest says what the credential is for. None of it is secret.
type CredentialRequest struct {
	// Endpoint is the Company's web.browser_session_endpoint, the credential's audience.
	Endpoint string
	// ReturnTo is where the Company sends the browser after the join.
	ReturnTo string
	// Domain is the Company's organization.domain.
	Domain string
}

// CredentialSource gets a fresh browser-join credential from the Personal
// Agent, which holds the live Session with the Company.
//
// Implementations must be safe to call from one goroutine at a time at least,
// must never put the credential in an error, and should honour ctx.
type CredentialSource interface {
	Credential(ctx context.Context, req CredentialRequest) (Secret, error)
}
