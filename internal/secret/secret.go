package secret

import (
	"fmt"
	"io"
	"log/slog"
)

// Redacted is what a [Value] prints instead of itself.
const Redacted = "[redacted]"

// Value is a secret string. Every way of printing it gives [Redacted]:
// fmt with any verb or flag (as a value, an exported field, or an
// unexported field, which fmt prints by reflection: there it shows as a
// pointer, never as the text), [log/slog], JSON as a value or a map key,
// and encoding.TextMarshaler users. Only [Value.Reveal] returns the text.
//
// The zero value is the empty secret. Values are immutable and safe to
// share; == compares identity, not text: use [Value.IsZero] or
// [Value.Equal].
type Value struct {
	// p hides the text behind a pointer, so that fmt printing an
	// unexported field (which cannot call methods) shows an address.
	p *string
}

// New returns s as a secret.
func New(s string) Value {
	if s == "" {
		return Value{}
	}
	return Value{p: &s}
}

// Reveal returns the secret itself. Call it only where the value must leave
// the process (a request header, a form field).
func (v Value) Reveal() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

// IsZero reports whether the secret is empty.
func (v Value) IsZero() bool { return v.Reveal() == "" }

// Equal reports whether v and w hold the same text.
func (v Value) Equal(w Value) bool { return v.Reveal() == w.Reveal() }

// String returns [Redacted].
func (Value) String() string { return Redacted }

// GoString returns [Redacted], for %#v.
func (Value) GoString() string { return Redacted }

// Format writes [Redacted] for every verb and flag.
func (Value) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, Redacted) }

// LogValue redacts the secret in [log/slog] output.
func (Value) LogValue() slog.Value { return slog.StringValue(Redacted) }

// MarshalJSON writes "[redacted]".
func (Value) MarshalJSON() ([]byte, error) { return []byte(`"` + Redacted + `"`), nil }

// MarshalText writes [Redacted]; encoding/json uses it for map keys.
func (Value) MarshalText() ([]byte, error) { return []byte(Redacted), nil }
