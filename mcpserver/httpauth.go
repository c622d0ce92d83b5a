package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/poppy-browser/poppy-browser/oauth"
)

// The MCP endpoint as an OAuth 2.1 resource server (HTTPOptions.Auth):
// every request's access token is verified (package oauth, through the
// go-sdk's RequireBearerToken), and each MCP session belongs to the
// subject of the token that initialized it.

// subjectKey carries a session's subject in the ctx its runtime opens
// with (OpenFunc).
type subjectKey struct{}

// SubjectOf is the subject the MCP session belongs to, in the ctx an
// OpenFunc is given: the issuer and sub of the access token that
// initialized it, over HTTP with HTTPOptions.Auth. False without one (the
// static token, stdio).
func SubjectOf(ctx context.Context) (oauth.Subject, bool) {
	s, ok := ctx.Value(subjectKey{}).(oauth.Subject)
	return s, ok
}

// subjectOfRequest is the subject of a request's verified token, if any.
func subjectOfRequest(req mcp.Request) (oauth.Subject, bool) {
	extra := req.GetExtra()
	if extra == nil {
		return oauth.Subject{}, false
	}
	return oauth.SubjectOf(extra.TokenInfo)
}

// withSubject is ctx bound to the subject of the request that began the
// session (none without one).
func withSubject(ctx context.Context, req mcp.Request) (context.Context, oauth.Subject, bool) {
	sub, ok := subjectOfRequest(req)
	if !ok {
		return ctx, sub, false
	}
	return context.WithValue(ctx, subjectKey{}, sub), sub, true
}

// ownedBy reports whether r may act on e's session: a session without a
// subject takes any request the token check let through; one with a
// subject only a request whose token names that same issuer and sub.
func (e *entry) ownedBy(r *http.Request) bool {
	want, bound := SubjectOf(e.ctx)
	if !bound {
		return true
	}
	got, ok := oauth.SubjectOf(auth.TokenInfoFromContext(r.Context()))
	return ok && got == want
}

// refuseOtherSubject answers a request for a session another subject's
// token began: 403, before anything of the session is touched (a DELETE
// would end it, a cancellation would drop its answers). The session's
// existence is all it learns.
func refuseOtherSubject(w http.ResponseWriter, rs *oauth.ResourceServer) {
	if rs != nil {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="invalid_token", error_description="this MCP session belongs to another user", resource_metadata=%q`, rs.MetadataURL()))
	}
	w.Header().Set("Connection", "close")
	http.Error(w, "forbidden: this MCP session belongs to another user (the token's iss and sub are not the session's)", http.StatusForbidden)
}

// protect is next behind the resource server's token check, with the
// Protected Resource Metadata (RFC 9728) served without a token at
// oauth.MetadataPath and below it.
func protect(rs *oauth.ResourceServer, next http.Handler) http.Handler {
	meta := auth.ProtectedResourceMetadataHandler(rs.Metadata())
	checked := rs.Middleware()(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == oauth.MetadataPath || strings.HasPrefix(r.URL.Path, oauth.MetadataPath+"/") {
			meta.ServeHTTP(w, r)
			return
		}
		checked.ServeHTTP(w, r)
	})
}

// closeRefused closes the connection of a request the token check
// refused (as requireBearer does): it gets its answer and no keep-alive.
func closeRefused(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&refusalCloser{ResponseWriter: w}, r)
	})
}

type refusalCloser struct{ http.ResponseWriter }

func (c *refusalCloser) WriteHeader(code int) {
	if code == http.StatusUnauthorized || code == http.StatusForbidden {
		c.Header().Set("Connection", "close")
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *refusalCloser) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *refusalCloser) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// subjectSessions counts the MCP sessions begun by each subject, by its
// hash (never the subject): /metrics's poppy_mcp_sessions_total.
func newSubjectSessions() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: "poppy_mcp_sessions_total",
		Help: "MCP sessions begun over HTTP with OAuth, by the SHA-256 of their subject (sub)."}, []string{"subject"})
}
