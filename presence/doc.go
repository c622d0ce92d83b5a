// Package presence proves that the User is there: the passkeys the User
// paired with this runtime, and the WebAuthn ceremonies that register one
// and that assert one for a take.
//
// # What it owns
//
// [Store]: the paired devices (WebAuthn credentials) in one JSON file in
// the User's config directory, mode 0600, read afresh for every ceremony,
// so a device revoked by `poppy-browser pair --revoke` in another process
// proves nothing from then on. [Store.ForSubject] is the view of one
// User of a service (an OAuth subject, by hash): its devices, and its own
// WebAuthn user handle, prove presence in that subject's sessions only.
// [Party]: one relying party (an RP ID and
// the one origin its ceremonies run on) over github.com/go-webauthn/webauthn,
// which begins and finishes a registration ([Party.BeginPairing]) and an
// assertion ([Party.BeginAssertion]). Both require user verification: a
// credential or an assertion without the UV flag is refused, and so is an
// assertion whose signature counter did not advance (a cloned
// authenticator or a replay), whose challenge, origin or RP ID is not the
// ceremony's, or whose credential is not paired.
//
// # What it must not do
//
// Decide who may take control: a verified assertion is a [control.Proof];
// the live view (package ui) binds it to a view and an offer and passes it
// to [control.User.TakeOn]. It holds no secret of the runtime's and writes
// no log: a credential's id and public key are not secrets.
//
// # Concurrency
//
// A [Store] and a [Party] are safe for concurrent use. An [Assertion] or a
// [Pairing] is one ceremony: finish it once.
package presence
