// Package jwtverify checks the signature of a JSON Web Token against an
// issuer's JSON Web Key Set, with go-jose: the one JOSE path of the
// runtime, used by the live view's signed identity (package ui) and by the
// MCP endpoint's OAuth access tokens (package oauth).
//
// [Keys] is a key set from an https URL (http only on loopback) or a file,
// loaded when first needed and again, at most every Refresh, for a key id
// it lacks (rotation), and after an hour; a failed load keeps the keys it
// had. [Keys.Verify] accepts asymmetric signatures only ([Algorithms]: no
// "none", no HMAC), one signature per token, a key whose type and curve
// fit the algorithm (RSA of 2048 bits at least), and decodes the claims;
// the caller checks them (issuer, audience, times, subject).
//
// It holds no secret (public keys only) and writes no log; its errors
// never hold a token. A [Keys] is safe for concurrent use.
package jwtverify
