package session

import (
	"context"
	"fmt"
	"log/slog"
)

// redacted is what a [Secret] prints instead of itself.
const redacted = "[redacted]"

// Secret is a credential: the browser join's signed JWT. It prints, formats,
// logs and marshals as "[redacted]"; only [Secret.Reveal] returns the value.
// The zero value is the empty secret.
type Secret string

// Reveal returns the secret itself. Call it only where the value must leave
// the process: the join page's hidden field.
func (s Secret) Reveal() string { return string(s) }

// String returns "[redacted]".
func (s Secret) String() string { return redacted }

// GoString returns "[redacted]", so %#v redacts too.
func (s Secret) GoString() string { return redacted }

// Format writes "[redacted]" for every verb and flag.
func (s Secret) Format(f fmt.State, verb rune) { fmt.Fprint(f, redacted) }

// LogValue redacts the secret in [log/slog] output.
func (s Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON writes "[redacted]", so a Secret in a logged or encoded struct
// stays secret.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

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
