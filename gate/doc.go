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
//     action would touch); the check arms the in-page guard;
//  4. take control's input lease, so that a take by the User and the
//     agent's input never overlap; dispatch real input (mouse, keys,
//     inserted text) or the navigation, then read what the guard caught
//     and disarm it; settle (wait briefly for a navigation the input
//     started); record the decision in the audit log (one line: event,
//     tool, ref, reason, mark, epoch, url; never typed text).
//
// A plan that only reads the page (a snapshot, a screenshot, a wait, the
// tab list) takes no lease, so a take never waits for it; instead Gate.Do
// checks the holder right before the read, stops the read when control
// changes, and throws away a read that met the User's turn
// (user_has_control). No plan checks control for itself.
//
// A new action adds a plan; it cannot skip a step. The set of actions is
// closed ([Click], [Hover], [Type], [Select], [PressKey], [Scroll],
// [Navigate], [Back], [Forward], [Snapshot], [Screenshot], [Wait], [Tabs],
// [HandleDialog]); there is no action that evaluates script.
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
// every path, tabs and dialogs included.
//
// # The lease, and a take during a navigation
//
// Input (a click, typed text, a key) holds the lease for the milliseconds
// its dispatch takes, and a take by the User waits for it: no agent input
// lands once a frame reads "user". A navigation ([Navigate], [Back]) holds
// the lease too, but a take does not wait for it: the page may take a
// minute to load, or never, and the User must not wait on the agent.
// The take stops it instead: the gate's navigation is cancelled and the
// page's loading stopped (the browser's stop button) before the lease
// ends, so that the agent's page never finishes loading during the User's
// turn; the action answers user_has_control. A navigation that finished
// before the take reports done, as it happened.
//
// # The catalogue
//
// [Catalogue] is the one list of actions: each is declared once, as a
// [Decl] next to its plan (tool name, title, description, the loop's name
// and line, input type and schema, and how an input becomes the action
// value), and listed in plans.go. The MCP server (package mcpserver) and
// the built-in loop (package agent) both build their tools from it. Adding
// an action touches three files: its type (action.go), its declaration,
// Tool method and plan (plans.go, or a file of its own like tabs.go or
// wait.go, and the list in plans.go), and its tool name (spec/names.go);
// then the goldens of the tool list.
//
// # Refs and epochs
//
// A snapshot scans every frame of the page (parents first) and gives each
// actionable element a ref: "e1", "e2", ... A ref names (frame, the
// scanner's local id) in one epoch. The gate's epoch goes up when control
// comes back from the User (control's epoch), when the page object changes,
// or when the top frame holds a new document (its loader changes, even at
// the same URL). Ref numbers only grow, so an older ref is recognised as
// stale, never reused. Within an epoch the same element keeps its ref
// across snapshots. A ref whose frame has since navigated is stale too.
// Each run reads the page's frame list once and passes [Frame] values.
//
// After a hand back [control.Status.MustReobserve] stays set until a
// snapshot (it calls [control.Control.ObservedAt]); until then a key press
// without a ref is refused with stale_ref.
//
// # Snapshots
//
// A snapshot is the page as a reader reads it, with refs inline and the
// marks noted: its grammar (lines, roles, links, what is cut and how) is in
// docs/reference.md ("Snapshot text"), and gate/testdata/snapshot.txt is
// the renderer's golden file. Page text is labelled as content from its
// website, never instructions, and a field a mark gives to the User shows
// no value, in the text, the elements or a screenshot. An action that
// changes the page can bring the new snapshot back in its own result
// ([Gate.DoAndSee], which the MCP server and the built-in loop use), so a
// page change costs one round trip. [MaxSnapshotText] bounds one part of a
// long page.
//
// # Tabs, dialogs and a browser in trouble
//
// The gate acts on the active tab (Options.Page returns it; the supervisor
// gives browser.Tabs.Active). A tab an action opens (a target=_blank link,
// window.open) becomes the active one and the result lists it in
// tabs_opened; the next action, in a new epoch, works on it, so refs
// belong to one tab. [Tabs] (browser_tabs) lists, selects, closes and
// opens tabs; a select, close or new passes the same sequence as any
// action. A result's page carries its tab index.
//
// An action whose input opens a JavaScript dialog returns as soon as the
// dialog opens (done, with dialog: the action ran up to it), and so does a
// navigation to a page that opens one while it loads; while a
// dialog holds the tab, every action but [HandleDialog]
// (browser_handle_dialog) and [Tabs] is refused with dialog_open. A
// browser that is gone, a crashed tab and a page whose main thread does
// not answer (browser's bounds) fail with browser_gone, crashed and
// page_busy, never an empty done; a snapshot that cannot read the top
// frame fails the same way. [Gate.Close] (SIGTERM, SIGINT) stops the action
// in flight, which fails with shutting_down, as does every later one.
//
// # What it must not do
//
// Know about MCP or any model; change who holds control (it reads control
// and takes its input lease; only a [Prober], which no model reaches,
// takes the User's turn for check's probes as the User); put a credential,
// a token or a value the User typed into a result, a log line or the audit
// log.
//
// # Probe mode
//
// [Prober] is the gate for package check's conformance probes: each input
// passes the sequence of [Gate.Do] (the User's turn, the element, the
// marks' verdict, the input lease, the same dispatch) and is recorded by
// "check". A probe names its element by frame and the scanner's local id,
// arms no in-page guard and does not settle (check watches what the input
// caused); a probe AsUser gives input a User may give, which no mark
// refuses. The Prober also holds the turns that keep every tab's
// navigator.poppy.controller in step while check's pages share a browser.
//
// # Concurrency
//
// A [Gate] is safe for concurrent use and runs one action at a time; a
// refusal for user_has_control never waits for a running action.
package gate
