// Package agent is the built-in agent loop: the AgentOutput tool, the
// registry of actions, the tolerant reply parser, the prompt, and the
// models ([Scripted] here, an OpenAI-compatible endpoint in agent/chat).
// Every browser action it takes passes the gate (package gate); its
// browser actions are the gate's catalogue (gate.Catalogue).
//
// # The built-in loop
//
// [Loop.Run] runs one task (a second one meanwhile gets [ErrBusy]). Each
// step it observes (a fresh gate.Snapshot through the gate), thinks (one
// [Model] call), acts (one action through the same gate) and records the
// step. The model is offered exactly one tool, AgentOutput
// ([ToolName]): evaluation_previous_goal, memory and next_goal (optional
// strings) and action, one of the [Registry]'s actions with its input. The
// request is two messages: the system prompt, and one user message with
// the task, the step counter, a "Current time:" line, who holds the
// browser, the history (goals, results, refusals, repairs) and the page.
//
// The built-in actions ([DefaultActions]) are the gated browser actions
// (click, type, select, press_key, scroll, navigate, back), wait,
// ask_user, request_user_control and done. An embedding program adds,
// overrides or removes actions with [Registry.Set] and [Registry.Remove];
// each action's input is validated against its JSON schema, and an action
// reaches the page only through [Env.Gate].
//
// The reply parser is tolerant: JSON in the message content instead of a
// tool call, an action name used as the tool name, arguments encoded
// twice, a missing action (the step waits) and a bare value for a
// one-field input are repaired and noted in the history; anything else is
// a failed step whose reason the model reads next step.
//
// When the gate refuses an action as user_step, the loop offers control
// to the User itself (control.Control.RequestUser, with the reason and the
// step), tells its observer, and goes on: the model may do other work or
// wait. While the User holds the browser the loop waits for the hand back
// (control.Control.WaitForAgent, under the task's context) without calling
// the model; after it, and whenever control changed hands while the model
// was deciding, the page is read again before any action.
//
// A task ends with the model's done, at the step limit (default 40), after
// too many failed model calls in a row, or when its context ends, even
// while an action ignores the context. [Scripted] is a deterministic model
// that needs no key; package agent/chat speaks to any OpenAI-compatible
// endpoint.
//
// # What it must not do
//
// Bypass the gate; hold or call control.User; know about MCP (package
// mcpserver) or the User's side (package ui); put a credential, a token or
// a value the User typed into a result, a log line or the prompt.
//
// # Concurrency
//
// A [Loop] runs one task at a time and is safe for concurrent use; a
// [Registry] is safe for concurrent use.
package agent
