// Package mcpserver is the MCP server of the runtime: typed tools over the
// gate, notifications of control changes, one runtime per MCP session, and
// serving over stdio or Streamable HTTP.
//
// [New] registers every tool of docs/reference.md. The browser tools are built
// from the gate's catalogue (gate.Catalogue): each input is checked here
// against the entry's schema, with messages a model acts on ("amount" must
// be at least 0, not -5), turned into the action value and passed to
// gate.Gate.Do. Its result is the tool's structured content; a denial is a
// normal result and a failed outcome sets isError, as in Playwright MCP.
// A snapshot's text goes over the wire once, as the text content (its
// elements join the structured content only when asked), and a
// screenshot is an image content. Output schemas are small and shared, so
// that tools/list stays under 10 KB; every tool has a title and
// annotations. The control tools (browser_request_user_control,
// browser_control_status, browser_wait_for_control) read and offer
// through package control; none changes the holder, which only the User
// does. A request checks its reason and ref, is refused while the User
// holds control, and names the offer it replaces; a wait lasts while an
// offer is open and unanswered and while the User holds control.
// [NotifyControl] turns every control change into an MCP logging
// notification.
//
// # Sessions
//
// [NewServer] takes an [OpenFunc] instead of a gate: each MCP session gets
// its own [Runtime] (over --http, supervisor.Session: its own browser
// context, control, live view and audit lines). Over stdio the runtime is
// opened in the background when the session begins (initialize, or the
// first request of the sessionless protocol), so initialize and
// tools/list answer at once while Chromium starts; over HTTP it is opened
// at the session's first tool call, so a bare initialize costs no browser
// context, and a session with no tool call within Options.FirstCallWithin
// (60 s) ends, freeing its slot. A tool call waits for its session's
// runtime (at most Options.StartTimeout) and, if it could not start, fails
// with spec.ReasonBrowserUnavailable and the reason (browser_control_status
// answers with browser_error). Each runtime's control changes go to its own
// session only. Every call's context also ends when its session ends, so a
// DELETE or an idle expiry stops a browser_wait_for_control at once. A
// session beyond Options.MaxSessions is refused at its initialize with a
// JSON-RPC error (CodeTooManySessions) naming the cap; over HTTP a session
// with no request for Options.SessionIdle ends, its runtime closed with
// reason "idle" (EndIdle) before the MCP session itself.
//
// # Failures and shutdown
//
// A panic in any handler answers its call (a tool call: failed, reason
// internal, isError; any other request: a JSON-RPC internal error), is
// logged with its stack (Options.Logger), and the session goes on. A
// result is kept under the go-sdk client's 16 MiB frame limit: a page
// text is cut at 2 MiB and an element list left out past 3 MiB, each
// saying so. When the server shuts down, every call in flight is answered
// (failed, shutting_down) within half a second, whether or not its action
// has stopped. The server owns every goroutine it starts: [Server.Close]
// ends every session and waits for them within its ctx (the goroutine
// reading stdin is the exception: a read of stdin cannot be interrupted).
//
// # Serving
//
// [Server.ServeHTTP] serves Streamable HTTP: a bearer token on every
// request (given, or random and shown once; a token the User set is never
// printed), the scheme matched in any case, no request from a foreign
// Origin whatever its method (403, checked before the token), refused
// connections closed after the answer, a header bound
// ([DefaultReadHeaderTimeout]) and an idle bound ([HTTPOptions].IdleTimeout)
// on every connection, a loud warning for a non-loopback address
// ([WarnIfExposed]). logging/setLevel with a level MCP does not name is
// answered -32602, over either transport. Beside MCP
// it answers GET /healthz and GET /readyz ([HTTPOptions].Ready, sessions
// under the cap) without the token, one word each, and GET /metrics
// (Prometheus text, a registry of the server's own: sessions, tool calls
// by tool and outcome, their latency, control changes, and
// [HTTPOptions].Collectors) with it.
// [Server.ServeStdio] serves stdio; a line that is not JSON gets a parse
// error (-32700), JSON that is not a message -32600, and the server reads
// on (the SDK alone ends the session). Both fill gaps of the go-sdk (v1.8):
// the response of a call the client cancelled (notifications/cancelled) is
// not sent (over HTTP its event is dropped from the call's stream); a call
// before initialize is answered with code -32600 (Invalid Request) rather
// than code 0 (over stdio the SDK's other code-0 errors get -32603).
// browser_wait_for_control sends a progress notification every
// Options.ProgressEvery when the call carries a progress token, so clients
// with a request timeout can reset it.
//
// # What it must not do
//
// Bypass the gate (every browser tool is one gate.Gate.Do); take, hand back
// or cancel control for the User; import the built-in loop (package agent),
// the User's side (package ui) or the runtime's wiring (package
// supervisor: it is handed an OpenFunc).
package mcpserver
