// Package mcpserver is the MCP server of the runtime: typed tools over the
// gate, notifications of control changes, one runtime per MCP session, and
// serving over stdio or Streamable HTTP.
//
// [New] registers every tool of docs/reference.md. The browser tools are
// built from the gate's catalogue (gate.Catalogue) and added, as every
// tool, through the go-sdk's typed handlers (mcp.AddTool), which check each
// input against the tool's schema; a misfit is answered as the tool
// answers bad input (failed, bad_argument, one line saying what is wrong).
// The input is turned into the action value and passed to gate.Gate.Do,
// whose result is the tool's structured content. The
// control tools (browser_request_user_control, browser_control_status,
// browser_wait_for_control) read and offer through package control; none
// changes the holder, which only the User does. [NotifyControl] turns every
// control change into an MCP logging notification.
//
// What the tools answer, the sessions' limits, the failures, and what each
// transport adds to the go-sdk (status endpoints, metrics, error codes) are
// in docs/reference.md, sections "MCP tools" and "MCP server".
//
// # Sessions
//
// [NewServer] takes an [OpenFunc] instead of a gate: each MCP session gets
// its own [Runtime] (over --http, supervisor.Session). Over stdio the
// runtime is opened in the background when the session begins; over HTTP
// at the session's first tool call, and a session with no tool call within
// Options.FirstCallWithin ends. A tool call waits for its session's runtime
// (at most Options.StartTimeout) and, if it could not start, fails with
// spec.ReasonBrowserUnavailable (or the reason its error carries, see
// [ReasonOf]); while Options.Pending reports an error the call answers at
// once with it instead of waiting. A session beyond Options.MaxSessions is
// refused at its initialize (CodeTooManySessions); over HTTP a session with
// no request for Options.SessionIdle ends, its runtime closed with reason
// "idle" (EndIdle) before the MCP session itself.
//
// # Serving
//
// [Server.ServeHTTP] serves Streamable HTTP behind a bearer token (a token
// the User set is never printed), an Origin check, a header bound
// ([DefaultReadHeaderTimeout]) and an idle bound ([HTTPOptions].IdleTimeout),
// with a warning for a non-loopback address ([WarnIfExposed]), and answers
// GET /healthz, /readyz ([HTTPOptions].Ready) and /metrics (with
// [HTTPOptions].Collectors). With [HTTPOptions].Auth (package oauth) it is
// an OAuth 2.1 resource server instead: every request's access token is
// verified, the Protected Resource Metadata is served, and each MCP session
// belongs to the subject of the token that began it ([SubjectOf] gives it
// to the OpenFunc); a request with another subject's token is refused
// before the session is touched (httpauth.go). [Server.ServeStdio] serves
// stdio.
//
// # What it must not do
//
// Bypass the gate (every browser tool is one gate.Gate.Do); take, hand back
// or cancel control for the User; import the built-in loop (package agent),
// the User's side (package ui) or the runtime's wiring (package
// supervisor: it is handed an OpenFunc).
//
// # Lifecycle and concurrency
//
// A panic in any handler answers its call, is logged with its stack
// (Options.Logger), and the session goes on. Every call's context ends
// when its session ends. When the server shuts down, every call in flight
// is answered (failed, shutting_down) within half a second. The server owns
// every goroutine it starts: [Server.Close] ends every session and waits
// for them within its ctx (the goroutine reading stdin is the exception: a
// read of stdin cannot be interrupted).
package mcpserver
