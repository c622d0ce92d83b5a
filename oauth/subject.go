package oauth

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Subject is whose an access token is: the issuer that signed it and the
// subject (sub) it names there. Two tokens are the same User's when both
// are equal.
type Subject struct {
	Issuer, Sub string
}

// Key is the subject as one string, the go-sdk's TokenInfo.UserID: the
// go-sdk and the runtime refuse a session's request whose token has
// another.
func (s Subject) Key() string { return s.Issuer + "\n" + s.Sub }

// Hash is how logs, the audit log and /metrics name the subject: the
// SHA-256 of its sub, so none holds anyone's address. It is the same hash
// as the live view's identity proof records for that sub.
func (s Subject) Hash() string { return SubjectHash(s.Sub) }

// SubjectHash is "sha256:" and the hex SHA-256 of sub.
func SubjectHash(sub string) string {
	sum := sha256.Sum256([]byte(sub))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Extra keys of the TokenInfo that [ResourceServer.Verify] fills.
const (
	extraIssuer  = "iss"
	extraSubject = "sub"
)

// SubjectOf is the subject of a verified token's info, false when it has
// none (a static bearer token, or no token).
func SubjectOf(ti *auth.TokenInfo) (Subject, bool) {
	if ti == nil || ti.Extra == nil {
		return Subject{}, false
	}
	iss, _ := ti.Extra[extraIssuer].(string)
	sub, _ := ti.Extra[extraSubject].(string)
	if iss == "" || sub == "" {
		return Subject{}, false
	}
	return Subject{Issuer: iss, Sub: sub}, true
}
