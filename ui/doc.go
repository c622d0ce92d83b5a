// Package ui is the User's side of poppy-browser: the live view and the
// terminal UI.
//
// # What it owns
//
// The terminal UI ([TUI], bubbletea v2 with lipgloss): always shows the
// Company, the Session, the page the browser is on and who holds control
// (in words and colour); shows the agent's offer with what the agent asked
// and, labelled as the Company's, the page's own words about the step; keys
// t (take control), h (hand back), c (cancel, or decline an offer), l (show
// the live view's address, and open it when [TUIOptions.OpenLive] is set),
// p (a one-time pairing link for one of the User's devices, with a QR
// code, when [TUIOptions.Pair] is set), q (quit; asks first while the User holds control, and quitting never ends
// the User's control). A feed shows each audit entry: the agent's actions,
// its refusals with the reason in words, offers and changes of control. It
// fits 80x24 and uses larger terminals. [OpenTerminal] opens /dev/tty, so the
// TUI can run while stdin and stdout carry MCP; without a terminal it fails
// with [ErrNoTerminal]. The keys call the same [control.User] methods as the
// live view's take, hand_back and cancel messages.
//
// The live view ([Live]): a small web page served on loopback by default
// (/live?token=T) that shows a screencast of the agent's tab, who holds the
// browser, the agent's offer of control with the Company's name, and what
// happened last (handed back, cancelled, declined, the agent finished with
// its words: [Live.Finish]); and its websocket (/live/ws?token=T), the User
// channel of docs/reference.md. Through it the User takes control, hands it back
// or cancels, and, while they hold control, drives the page with taps,
// mouse, keys and text, goes back, forward, reloads, types an address and
// switches or closes tabs. It works on a phone: while a phone or tablet
// viewer holds control, the pages are shown at its size (see
// [control.User.TakeOn]), taps become touch events, and a tap on a text
// field opens the phone's keyboard over it. Any number of viewers may
// watch; one holds control. In the User's turn the page's file chooser is
// answered with files from the User's device and the page's downloads are
// offered to save there (files.go, downloads.go); the agent never gets
// their bytes. docs/live-view.md describes it for people.
//
// # What it must not do
//
// Act for the model. Everything here acts for the User through the
// [control.User] handle, and input reaches the page only while
// [control.Control.Holder] reads "user" at the moment the message arrives;
// otherwise it is dropped. The live view never shows its token to a page, a
// log line or an error.
//
// # Protocol
//
// The websocket's JSON messages, both ways, are listed in
// docs/reference.md ("The User channel"). Input, nav, tab, dialog and
// hand back count only from the viewer in control (a viewer becomes it
// only by its own take, never by input); dropped input is not answered.
// The page sends printable characters as "text" and other keys as "key"
// events (see live/input.js).
//
// # Security
//
// Presence, not possession (presence.go): a view opened with the token, a
// link's login or an MCP App's login shows the offer card only (no frame,
// no page address, no step box) and can neither take nor hand back until
// the User proves their presence in it: a passkey ceremony (package
// presence) whose challenge the connection keeps, bound to the offer open
// (or the control epoch), the operator's verified identity
// (LiveOptions.UserIdentity, [Live.IdentityProof]), or, only with LiveOptions.InsecureTakeByLink on
// loopback, the link itself. The take passes that proof to
// [control.User.TakeOn], and the audit line records it. Pairing links
// (pairing.go, [Live.MintPairing], [PairServer]) work once, for
// DefaultPairTTL.
//
// With UserIdentity, every request must first carry the operator's signed
// identity of the session's User, a JWT verified against the identity
// provider's keys ([Identity], identity.go, jwks.go); else 403 and one line
// naming the failed check. [Live.IdentityProof] gives the verified
// subject's hash to a take; a view's identity proof ends when that
// identity expires, though its websocket stays open (sweepProofs). The websocket must carry the per-run token (compared
// in constant time) or a live login as the subprotocol poppy-viewer.SECRET;
// minting a link needs the token; a refusal is a bare 403 and its
// connection is closed. A login comes from a hand-off link ([Live.MintLink],
// links.go, login.go): single-use, expiring (LinkTTL), for an offer only
// while it is open, revoked when the offer ends. GET /live/link/TOKEN shows
// the offer and one button and spends nothing; the button's same-origin
// POST spends the link for a login that the page keeps in sessionStorage
// (never a cookie, never a URL) and that ends with the User's turn it was
// minted for. A read-only link's viewer is refused everything but watching.
// The page /live holds no secret. A listener on loopback
// answers only to loopback host names (no DNS rebinding); other addresses
// need TLS or a proxy's public origin (remote.go, [CheckServing]), whose
// Host and Origin are then required. The websocket handshake must carry an
// Origin equal to the live view's own; browsers always send one, scripted
// clients must too. The page is served with a strict Content-Security-Policy
// (its script and style inlined and allowed by hash; frame-ancestors 'none',
// or exactly EmbedOrigins), Referrer-Policy no-referrer and Cache-Control
// no-store. Only the User should see [Live.URL] and links.
//
// # Concurrency
//
// [Live] is safe for concurrent use. Each websocket has a reader (the HTTP
// handler, messages handled in order) and a writer goroutine; the screencast
// runs only while at least one websocket is connected, in one goroutine that
// broadcasts each frame, a slow client skipping frames rather than queueing
// them. [Live.Shutdown] closes the server, every websocket and the
// screencast, and waits for their goroutines.
package ui
