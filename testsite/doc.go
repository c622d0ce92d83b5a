// Package testsite is the demo Company, an airline, and the fixture pages the
// end-to-end tests and the demo browse.
//
// One HTTPS listener serves every host, dispatching on the Host header:
//
//   - airline.test, the Company (organization.domain), and www.airline.test:
//     /.well-known/poppy.json, the browser join at POST /poppy/browser-session,
//     booking bkg_4Rt9 with its marked check-in page and boarding pass, and
//     fixtures under /fixtures/ (an unmarked check-in, an off-site redirect, a
//     popup, a page that tampers with navigator.poppy), and a travel shop
//     under /shop ([ShopStartURL]: a search of 200 results filtered in
//     place, a product, a cart in a cookie, a checkout form marked
//     submission), for a task of ten steps;
//   - pay.airline.test, a Company subdomain serving the pay frame;
//   - partner.test, a third party serving a frame and a landing page.
//
// Every host also serves /static/, /api/ping and POST /report, where the pages'
// scripts report what they see of navigator.poppy. Any other host gets 421.
//
// # Certificates
//
// [New] mints a CA and a leaf certificate in memory. Go clients trust the CA
// ([Site.CertPool], [Site.Client]); Chromium trusts the leaf by its SPKI pin
// and resolves *.test to the listener ([Site.BrowserArgs]), never by a
// blanket bypass. [Site.CAPEM] is the CA for a runtime's --ca-file, which
// the testsite command writes to a file; [Directory] lists the pages it
// prints.
//
// # The browser join
//
// The join endpoint is a strict reference Company. It accepts a browser
// credential (a JWT with typ poppy-browser+jwt, compared as RFC 7515 4.1.9
// says, EdDSA) signed by one of [Options.TrustedKeys] or a key added with
// [Site.TrustKey]. It requires iss, sub, aud, iat, exp (after iat, at most
// 60 s after it), jti (no replay) and session_id, honours nbf, tolerates 5 s
// of clock skew, and checks return_to (HTTPS on airline.test or a subdomain,
// by spec.MatchesURL). On success it sets the airline_session cookie (its
// pages then greet the credential's sub: "Signed in as ...") and
// answers 303 to return_to; otherwise 400 with a short reason (one of the
// Reason constants) and no cookie. [Site.SetJoinAnswer] makes it break the
// protocol on purpose, for tests of the runtime.
//
// # Records
//
// The Site records facts that tests assert on: every request per host
// ([Site.Requests]), check-ins ([Site.CheckIns]), page reports
// ([Site.FrameReports]), joins ([Site.Joins]) and the shop's orders
// ([Site.ShopOrders]). It never records the
// credential or the passport number a User typed. [Site.WaitFor] and friends
// wait for a record without sleeping; [Site.Reset] clears them between tests.
//
// # The demo
//
// [AutoUser] plays the User's part of the demo over the runtime's live view
// websocket; [Site.CheckInSummary] says what the airline recorded.
//
// # Boundaries
//
// testsite is test and demo infrastructure: runtime packages must not import
// it. It uses no package-level state, so several Sites can run in one process.
// A Site's methods are safe for concurrent use; Close stops its listener.
package testsite
