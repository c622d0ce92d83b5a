// Package supervisor runs a Company's runtime, the way tsnet.Server is one
// node: a Company's website in a real Chromium, with the Company's marks
// honoured, navigator.poppy provided, the gate for each agent, the audit
// log and each User's live view, started and stopped in order.
//
// # Structure
//
// A [Server] owns what is shared: the Company (discovery, or --no-join),
// the audit log, and one Chromium launched (or attached) with the
// Poppy-Extensions header on the Company's requests and the marks scanner.
// A [Session] is one User's agent in it: a browser context and its page,
// the injector scoped to that context, control state (with its hand-over:
// what a change of holder does to the frames, their in-page guard, the
// window's own input and the pages' size, in order), the join, the
// Control's one gate (for check, its probe view, [Session.Prober]), a live
// view with its own token, and audit lines carrying the session's id
// ([audit.Log.ForSession]). The Session alone builds, runs and closes
// these: no caller wires any of them.
// With [Options.ContextPerSession] (MCP over --http) every Session gets a
// new browser context (Target.createBrowserContext), disposed of when the
// Session closes: cookies, storage, tabs, the holder of control and
// navigator.poppy's value are the Session's alone, and its live view
// listens on a free port of Live.Addr's host. Without it (stdio, demo, run,
// check) the one Session drives the tab Chromium opened at launch (or, when
// attached, an existing blank tab; only if there is none, one new tab), in
// the default context: no extra tab or context is paid for.
//
// [Supervisor] is a Server with its one Session, for callers that want one
// runtime started and stopped as a unit (cmd's demo, run and check, and
// the end-to-end tests).
//
// # What it owns
//
// The wiring of the runtime: finding the Company, launching or attaching
// the browser, the marks scanner (and, for check, its watcher), the
// injector, control, the join, the gate ([gate.Gate]), the audit log and
// the live view. Commands (cmd/poppy-browser), the conformance checker
// (check), the MCP server's sessions (through cmd) and the end-to-end
// tests build on it rather than wiring these themselves.
//
// # What it must not do
//
// Parse flags, print to a terminal on its own (the live view's URL goes to
// [LiveOptions.UserMessages] only), or act for the model: the agent acts only
// through a Session's gate, the User only through control's User handle
// and the live view.
//
// # Lifecycle
//
// [NewServer] takes [Options] and starts nothing. [Server.Start] finds
// the Company, opens the audit log and launches the browser; it may run in
// a goroutine while [Server.Ready] lets callers wait for it (the MCP server
// answers initialize meanwhile). [Server.NewSession], the one constructor
// of a Session's runtime, waits for Ready, then [Session.Open] opens, in
// order: browser context and page, injector and hand-over, control, join,
// gate, live view; on error it closes what it opened. [Session.Close]
// (with a ctx) ends the work beside the Session, its gate and live view,
// disposes of its browser context and records session_end with its
// reason. [Server.Close] stops a start in progress,
// then closes the browser and the audit log; close Sessions first.
//
// A browser that goes away (Chromium dies, a pool restarts or refuses) is
// not the end of a Server: the Sessions open on it keep it (their calls
// fail with browser gone, their control state stays), and the next
// NewSession attaches again, or launches again without CDPURL, one attempt
// at a time with a backoff of 0.5 s doubling to 30 s and ±20 % jitter.
// [Server.BrowserStats], [Server.Collectors] and [Server.Serving] tell an
// operator; attach, failure, loss and reattach are one log line each.
// [Supervisor.Start] is Server.Start then one NewSession; on error it
// closes what it started. [Supervisor.Close] closes the Session then the
// Server. Every Close is safe to call more than once and after a failed
// start.
//
// # Concurrency
//
// Server and Session methods are safe for concurrent use; Sessions of one
// Server open and close independently. A Supervisor's Start and Close must
// not run concurrently with each other. The accessors are safe once the
// start has returned nil; the parts they return document their own
// concurrency. Each Session runs its work beside it in one errgroup
// (golang.org/x/sync/errgroup), from the end of Open until Close: the
// injector's background work (injector.Injector.Run), the audit log's
// health for its live view, and up to four watches of control's events:
// one records the
// User's own navigations in the audit log, one shows a desktop notification for each
// offer ([OfferOptions.NotifyDesktop]), one writes each offer with the live
// view's address to UserMessages ([OfferOptions.Announce]), one runs the
// --on-offer command for each offer ([OfferOptions.Command], each run in a
// goroutine of its own). No part keeps a context: each is a function of
// the ctx Open gives it. [Session.Close] ends them in its order (the
// watches before the gate, the injector's after the live view) and waits
// for the group, runs included, within its ctx; a part that fails ends
// the others, and its error is logged and returned by Close. The browser
// and the live views own their goroutines, and a caller runs Server.Start
// in its own goroutine when it wants the start in the background.
// The Server reports the audit log's health on Options.Live.UserMessages, and
// each Session in its live view: while the log cannot be written the gate
// refuses agent actions (audit_unavailable).
package supervisor
