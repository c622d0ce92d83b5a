// Package gate is what the agent's model sees of the browser and does with
// it: snapshots, element refs, actions as plans, and [Gate.Do], the one
// path from a model to the page.
//
// # The one invariant
//
// Every agent action is an [Action] value that passes [Gate.Do]. An action
// runs no step itself: it returns a plan (the ref it targets, the
// marks.Action describing what it would touch, how to dispatch it, whether
// to settle, how to describe success), and Gate.Do runs the same sequence
// for every plan, in one place (the list of docs/architecture.md):
//  1. refuse at once if the User holds control (user_has_control), without
//     queueing or waiting; and again once the action has its slot, since
//     the User may have taken control while it waited;
//  2. refuse a stale ref: one of an older epoch or whose frame has changed
//     (stale_ref), one it never handed out (no_such_ref); a string that is
//     no ref at all ("", "x12"), or none where the action needs one, fails
//     with bad_argument;
//  3. ask the page, in one round trip (marks.Check), what the action
//     touches and which marks cover it, and refuse a marked step
//     (user_step, with the refs of the marked element and of what the
//     action would touch); the check arms the in-page guard, beside it the
//     guard is armed in every other Company frame and tab of the Session
//     (a script reaches them through opener or a named window) and what
//     it stopped after the last action is read; a take stands the guard
//     down in every Company frame (package supervisor), and it arms
//     nothing when the check raced a take;
//  4. take control's input lease, so that a take by the User and the
//     agent's input never overlap; dispatch real input (mouse, keys,
//     inserted text) or the navigation, then read what the guard caught
//     and disarm it (it stays armed 2 s more, without holding the call,
//     and the next action reports what it stopped then; a document of
//     the Company's website a navigation loads in that time is armed at
//     its start, see newdocuments.go, and a take ends that first); settle (wait briefly for a navigation the input
//     started); record the decision in the audit log (one line: event,
//     tool, ref, reason, mark, epoch, url; never typed text).
//
// A plan that only reads the page (a snapshot, a screenshot, a wait, the
// tab list) takes no lease; Gate.Do checks the holder right before the
// read, stops the read when control changes, and throws away a read that
// met the User's turn. No plan checks control for itself. A navigation
// holds the lease, but a take does not wait for it: the take cancels it
// and stops the page's loading. The set of actions is closed ([Catalogue],
// each declared once as a [Decl] next to its plan, the list and spec's
// tool names generated from the declarations by go generate; how to add one:
// docs/architecture.md, "Adding an action"); there is no action that
// evaluates script.
//
// How refs and epochs, tabs, dialogs and a browser in trouble look to the
// model is in docs/reference.md, section "Refs, tabs and dialogs"; the
// snapshot's grammar in its section "Snapshot text" (the golden file:
// gate/testdata/snapshot.txt). [MaxSnapshotText] bounds one part of a long
// page; [Gate.DoAndSee] brings the new snapshot back with an action that
// changed the page, and [Gate.DoAndSeeChanges] (the MCP server's) also
// brings what changed after an action on the same document: a look at a
// document the model has read shows only what changed since its last
// look ([Snapshot].Since, changes.go; docs/reference.md, "What changed").
// A snapshot clears [control.Status.MustReobserve]
// ([control.Control.ObservedAt]). Each run reads the page's frame list once
// and passes [Frame] values.
//
// # What the gate needs of a page
//
// [Surface] is the seam where the gate's decisions end: document
// identity, URL, frames, a gone browser. What else it needs it declares in
// small interfaces, each for the steps that use it, and finds on the
// surface: [Marks] (scan, check, disarm), [Input], [Navigation], [Picture]
// (the screenshot) and [TabSet] (tabs, the tab's dialog, what the page
// did). A surface without one is a page that cannot do that, so a test
// fakes only the interfaces it exercises. The real surface drives a
// browser page; package gatetest's fake page has every part and walks
// every path, tabs and dialogs included. The gate acts on the active tab
// (Options.Page returns it; the supervisor gives browser.Tabs.Active).
//
// # Probe mode
//
// [Prober] is the gate for package check's conformance probes: each input
// passes the sequence of [Gate.Do] (the User's turn, the element, the
// marks' verdict, the input lease, the same dispatch) and is recorded by
// "check". A probe names its element by frame and the scanner's local id,
// arms no in-page guard and does not settle; a probe AsUser gives input a
// User may give, which no mark refuses. The Prober also holds the turns
// that keep every tab's navigator.poppy.controller in step while check's
// pages share a browser.
//
// # What it must not do
//
// Know about MCP or any model; change who holds control (it reads control
// and takes its input lease; only a [Prober], which no model reaches,
// takes the User's turn for check's probes as the User); put a credential,
// a token or a value the User typed into a result, a log line or the audit
// log.
//
// # Lifecycle and concurrency
//
// A [Gate] is safe for concurrent use and runs one action at a time; a
// refusal for user_has_control never waits for a running action.
// [Gate.Close] (SIGTERM, SIGINT) stops the action in flight, which fails
// with shutting_down, as does every later one.
package gate
