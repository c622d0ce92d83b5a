// Package mcpserver is the MCP server of the runtime: typed tools over the
// gate, and notifications of control changes.
//
// [New] registers every tool of CONTRACT.md. The browser tools are built
// from the gate's catalogue (gate.Catalogue): each input is checked against
// the entry's schema, turned into the action value and passed to
// gate.Gate.Do; its result is the tool's structured content (outputSchema
// from gate.Result), and a denial or a failure is a normal result, not an
// error. The control tools (browser_request_user_control,
// browser_control_status, browser_wait_for_control) read and offer
// through package control; none changes the holder, which only the User
// does. [NotifyControl] turns every control change into an MCP logging
// notification.
//
// # What it must not do
//
// Bypass the gate (every browser tool is one gate.Gate.Do); take, hand back
// or cancel control for the User; import the built-in loop (package agent)
// or the User's side (package ui).
package mcpserver
