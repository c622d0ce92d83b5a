// Package mcpserver is the MCP server of the runtime: typed tools over the
// gate, and notifications of control changes.
//
// [New] registers every tool of CONTRACT.md. The browser tools are built
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
// # What it must not do
//
// Bypass the gate (every browser tool is one gate.Gate.Do); take, hand back
// or cancel control for the User; import the built-in loop (package agent)
// or the User's side (package ui).
package mcpserver
