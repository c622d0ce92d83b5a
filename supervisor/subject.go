package supervisor

import (
	"context"

	"github.com/poppy-browser/poppy-browser/presence"
	"github.com/poppy-browser/poppy-browser/ui"
)

// A Session's User over --http with OAuth: the subject (sub) of the
// access token that began its MCP session. Its live view takes that
// subject's presence only: the operator's signed identity must name it
// (userIdentity), and only the passkeys paired for it prove anything.

// NewSessionFor is [Server.NewSession] for the MCP session id that the
// OAuth subject sub began ("" is NewSession's runtime User): its live
// view's identity must name sub, its passkeys are those paired for sub,
// and its session_start line carries sub's hash.
func (s *Server) NewSessionFor(ctx context.Context, id, sub string) (*Session, error) {
	return s.newSession(ctx, id, sub)
}

// Subject is the OAuth sub the Session belongs to, "" for the runtime's
// own User.
func (ss *Session) Subject() string { return ss.subject }

// subjectHash is the Session's subject as the audit log names it.
func (ss *Session) subjectHash() string {
	if ss.subject == "" {
		return ""
	}
	return ui.SubjectHash(ss.subject)
}

// passkeys are the devices that prove the Session's User's presence: the
// runtime's own User's, or, for a subject, those paired for that subject.
func (ss *Session) passkeys() *presence.Store {
	if ss.subject == "" {
		return ss.srv.opts.Live.Passkeys
	}
	return ss.srv.opts.Live.Passkeys.ForSubject(ui.SubjectHash(ss.subject))
}
