package control

import "errors"

// ProofKind names how the User's presence was proved for a take.
type ProofKind string

// The kinds of [Proof], as the audit log's proof field spells them.
const (
	// ProofPasskey: a WebAuthn assertion with user verification from a
	// credential paired to this runtime, made in the view that took.
	ProofPasskey ProofKind = "passkey"
	// ProofTerminal: the take key of the terminal UI the User runs.
	ProofTerminal ProofKind = "terminal"
	// ProofIdentity: an identity the operator's identity provider signed
	// for the session's User, verified on the view's request.
	ProofIdentity ProofKind = "identity"
	// ProofInsecureLink: the holder of a link or the per-run token, only
	// with --insecure-take-by-link (tests and demos).
	ProofInsecureLink ProofKind = "insecure-link"
)

// Proof is how the User's presence was verified for a take: what the
// Company's controller=user rests on. The zero Proof proves nothing, and
// [User.TakeOn] refuses it. It holds no secret: a credential's id is
// public, and an identity is kept only as a hash of its subject.
type Proof struct {
	Kind ProofKind
	// Credential is the passkey's credential id (base64url), for
	// ProofPasskey.
	Credential string
	// UserVerified is the authenticator's UV flag, for ProofPasskey
	// (always true for a passkey proof the runtime accepted).
	UserVerified bool
	// Subject is a hash of the identity's subject, for ProofIdentity.
	Subject string
}

// ErrNoProof is returned by [User.TakeOn] for a take without a proof of
// the User's presence.
var ErrNoProof = errors.New("no proof of the User's presence")

// valid reports whether p names a kind of proof with what that kind needs.
func (p Proof) valid() bool {
	switch p.Kind {
	case ProofPasskey:
		return p.Credential != "" && p.UserVerified
	case ProofIdentity:
		return p.Subject != ""
	case ProofTerminal, ProofInsecureLink:
		return true
	}
	return false
}

func (p *Proof) clone() *Proof {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}
