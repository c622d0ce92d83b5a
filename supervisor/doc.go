// Package supervisor runs one Session's runtime, the way tsnet.Server is one
// node: a Company's website in a real Chromium, with the Company's marks
// honoured, navigator.poppy provided, the gate for the agent, the audit log
// and the User's live view, started and stopped in order.
//
// # What it owns
//
// The wiring of one runtime: finding the Company (discovery, or --no-join),
// launching or attaching the browser with the Poppy-Extensions header on the
// Company's requests, the marks scanner (and, for check, its watcher), the
// injector, the control state with the window-input guard, the join, the
// gate ([gate.Gate]), the audit log and the live view. Commands
// (cmd/poppy-browser), the conformance checker (check) and the end-to-end
// tests build on it rather than wiring these themselves.
//
// # What it must not do
//
// Parse flags, print to a terminal on its own (the live view's URL goes to
// [Options.UserMessages] only), or act for the model: the agent acts only
// through [Supervisor.Gate], the User only through control's User handle
// and the live view.
//
// # Lifecycle
//
// [New] takes [Options] and starts nothing. [Supervisor.Start] starts, in
// order: the Company (discovery or NoJoin), the audit log, the browser with
// the marks script, the injector, the agent's page, control (with the window
// guard when asked), the join, the gate, the live view. If a step fails,
// Start closes what it started and returns the error. [Supervisor.Close]
// stops in the reverse order of what the User and the agent reach: the live
// view first (no more User input or screencast), then the browser, then the
// audit log; it returns their errors joined and waits for the live view's
// goroutines. Close is safe to call more than once and after a failed Start.
//
// # Concurrency
//
// Start and Close must not run concurrently with each other. The accessors
// are safe for concurrent use once Start has returned nil; the parts they
// return document their own concurrency. The Supervisor starts no goroutine
// of its own: the browser and the live view own theirs.
package supervisor
