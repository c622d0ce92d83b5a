// Package oauth makes the MCP endpoint over HTTP an OAuth 2.1 resource
// server (MCP authorization, 2025-11-25 and 2026-07-28): it verifies the
// bearer access token of every request and says whose it is.
//
// # What it owns
//
// [ResourceServer]: the issuers it trusts (--auth-issuer), the audience
// its tokens must name (--auth-audience, the resource's URI, RFC 8707),
// and the scopes they must carry. Each issuer's JSON Web Key Set is found
// through its metadata (RFC 8414 /.well-known/oauth-authorization-server,
// else OpenID Connect discovery) when a token of that issuer first
// arrives, and is cached with rotation (package internal/jwtverify: the
// runtime's one go-jose path, asymmetric algorithms only). [ResourceServer.Verify]
// is a go-sdk [auth.TokenVerifier]: signature, issuer, audience, expiry,
// not-before and subject, every request; the go-sdk's
// [auth.RequireBearerToken] checks the scopes and answers 401 or 403 with
// `WWW-Authenticate: Bearer resource_metadata="..."`.
// [ResourceServer.Metadata] is the Protected Resource Metadata (RFC 9728)
// served at /.well-known/oauth-protected-resource.
//
// [Subject] is whose a token is: its issuer and subject. [SubjectOf] reads
// it from the go-sdk's [auth.TokenInfo]; its [Subject.Key] is the
// TokenInfo's UserID, which binds an MCP session to it, and [Subject.Hash]
// is what logs and metrics carry, never the subject itself.
//
// # What it must not do
//
// Log or return a token: its errors say which check failed, in one line.
// It holds no secret (issuers' public keys only).
//
// # Concurrency
//
// A ResourceServer is safe for concurrent use.
package oauth
