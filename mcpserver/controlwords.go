package mcpserver

import "github.com/poppy-browser/poppy-browser/spec"

// controlWords are one control tool's words: the description its model
// reads, and its notes in docs/reference.md's table of tools (Markdown:
// its result and limits beyond its inputs), as an action's gate.Decl
// carries them.
type controlWords struct{ name, description, notes string }

// controlTools are the control tools' words, in the order the server
// adds them (addControlTools); docs/reference.md's table lists them after
// the actions, in this order (TestReferenceToolTable writes it).
var controlTools = []controlWords{
	{name: spec.ToolRequestUserControl,
		description: "Offer the User control for their step (user_step). " +
			"Answers at once; tell the User, then wait or work on.",
		notes: "answers at once: `{outcome: \"done\", offer: {id, reason, step?, reached}, replaced?, " +
			"elicitation?}`; `reached` names the User's channels the offer went to " +
			"(`\"on_offer\"`, `\"elicitation\"`, `\"app\"`; never a link), `[]` when none; " +
			"`denied`/`user_has_control` while the User already holds control; never waits for " +
			"the User"},
	{name: spec.ToolControlStatus,
		description: "Who holds the browser, the open offer, must_reobserve.",
		notes: "`{controller, offer?, declined?, last_return?: {how: \"handed_back\"|\"cancelled\", " +
			"at}, must_reobserve, viewer_connected, user_message?, elicitation?: {offer, " +
			"action}, browser_error?}`; `action` is the MCP client's answer to the latest " +
			"offer's URL elicitation: `pending`, `accept` (the User opened the link), `decline` " +
			"(the offer is declined), `cancel` (dismissed; the offer stays open), `failed`"},
	{name: spec.ToolWaitForControl,
		description: "Wait up to 60 s for the User's turn to end; if timed_out, call again.",
		notes: "at most 60; while an offer is open, waits until it is answered and the User's turn " +
			"is over (handed back, cancelled, declined), or the timeout (`timed_out`); while the " +
			"User holds control, until they end it; sends progress notifications when the call " +
			"carries a progress token; returns the status, with `user_message` when the User " +
			"left one"},
}

// controlWordsOf returns the words of the control tool name.
func controlWordsOf(name string) controlWords {
	for _, w := range controlTools {
		if w.name == name {
			return w
		}
	}
	panic("mcpserver: no words for the control tool " + name) // a wiring mistake any test reaches
}
