// Package session finds a Company and joins a browser to the Personal Agent's
// Session with it: discovery of poppy.json over HTTPS, the browser join, and
// the Session's facts the rest of the program needs (the Company's hosts and
// the extensions its requests declare).
//
// It owns:
//   - discovery ([Discover]): GET https://{domain}/.well-known/poppy.json,
//     HTTPS at every hop, at most [MaxRedirects] redirects, at most
//     [MaxDocumentSize] bytes, validated by package spec;
//   - the [Company]: organization.domain (never a public suffix; an IDN in
//     either form) and its subdomains are its website
//     ([Company.IsCompanyHost], [Company.IsCompanyURL]), its
//     browser_session_endpoint, the extensions declared (browser-control
//     v1) and where they are declared ([Company.DeclaresTo]: https and wss
//     only, http and ws to a localhost Company); [NoJoin] makes one for
//     --no-join;
//   - the join credential from the Personal Agent ([CredentialSource]):
//     [CommandSource] runs the agent's command (its own process group, a
//     timeout, a 64 KiB output cap, an allowlisted environment
//     [CommandEnv], its stderr's last line in the error), [KeySigner] signs
//     one itself (the demo, tests); a [Secret] (internal/secret's one
//     redacting type) redacts itself everywhere but Reveal;
//   - the development agent: a key in the User's config directory
//     ([DefaultDevKeyPath], [LoadOrCreateDevKey], mode 0600) and its
//     [DevSigner], which `poppy-browser dev-credential` and the testsite
//     use so that a join can be tried without a real Personal Agent;
//   - the browser join ([Join]) through the small [JoinBrowser] interface.
//
// It must not know about marks or control, and must not import package
// browser: cmd adapts the browser to [JoinBrowser].
//
// # The join
//
// [Join] checks that return_to is https on the Company's website, gets a
// fresh credential, and serves a one-shot page on a fresh loopback listener
// (127.0.0.1, random port, random 128-bit path; it answers once and then
// 404s, with Cache-Control: no-store and no referrer). The page POSTs the
// credential to the endpoint as the form field "assertion" and never puts
// it in a URL. The browser loads that page while Join watches its
// requests ([JoinBrowser.WatchRequests]): the join succeeded only when the
// request after the POST is a GET of return_to itself (the endpoint's
// redirect), the browser then holds a cookie for return_to that it did not
// hold before, and the browser ends on the Company's website with a 2xx
// status. A redirect that keeps the POST (307, 308) is refused before the
// credential is re-sent; a redirect elsewhere is refused before the browser
// goes there. On failure the browser's cookies are cleared and the error
// names the Company and what it answered, so the caller records nothing as
// a join. The listener is closed before Join returns.
//
// The decisions where docs/core-protocol.md leaves the protocol open
// (public suffixes, cleartext, redirects, userinfo, versions) are written
// down, with their reasons, in PROTOCOL.md at the repository root.
//
// The Poppy-Extensions header on the join POST (step 2 of the join, which
// fixes what every later request declares) is not added here: the browser
// adds it, by request interception, to every request [Company.DeclaresTo]
// allows, from [Company.Extensions]. The join request is one of them.
//
// # What is assumed of the Poppy core specification
//
// The full text of the core specification's browser join (section 6) is not
// available to us, so this package follows the draft 0.1 shape, as
// docs/core-protocol.md records it, and keeps it here in one replaceable
// place:
//   - the credential is a JWT, header typ "poppy-browser+jwt", signed by the
//     Personal Agent, with claims iss, sub, aud (the endpoint), session_id,
//     return_to, iat, exp (at most 60 s after iat) and jti;
//   - it is POSTed as application/x-www-form-urlencoded field "assertion" to
//     web.browser_session_endpoint from an auto-submitting loopback page;
//   - success is 303 See Other to return_to with the Company's session
//     cookie; failure is 400 and no cookie.
//
// Not known, and not implemented: the exact 0.4/1.0 join steps and body, and
// newer credential formats (later drafts sign a Poppy-Session JWT per request
// with a delegation key). Only the Personal Agent's [CredentialSource] and
// [Join] would change.
//
// # Concurrency
//
// [Discover] and [Join] may run concurrently with each other; each Join uses
// its own listener. A [Company] is read-only once made and safe to share.
// [CommandSource] and [KeySigner] are safe for concurrent use. There is no
// package state.
package session
