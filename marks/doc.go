// Package marks reads browser-control v1 marks (data-poppy-user-step) in a
// page and says which marks cover what an agent action would touch.
//
// It owns the in-page scanner, the files of js/scanner/ joined in a fixed
// order, embedded and run at document start in the isolated world [World]
// of every frame ([Script]); Go calls into it with JSON arguments, one CDP
// round trip per call. How the files import one another and how a scan
// crosses CDP (the wire layout, one table in wirelayout.go that go generate
// writes js/scanner/layout.js from) are in docs/architecture.md, section
// "Inside package marks". The scanner never reads or writes the page's
// JavaScript globals, and every [Check] reads the marks from the DOM at
// that moment. A scan of an unchanged page is kept in the page, so that
// [ScanAgain] sends no entries; it only ever shows the page, never decides
// an action.
//
// What a mark covers (form owners, activation targets, implicit
// submission, keys, selects, wheels), how closed shadow roots are read,
// and what the in-page guard stops are in docs/reference.md, section "What
// a mark covers". A mark value counts as [spec.KindOf] says;
// [CanonicalKey] says which keys are Enter, and [ActionWheel] is a wheel.
// [ScanFrame] has the browser hand closed roots to the scanner
// ([browser.Frame.AdoptClosedShadowRoots]).
//
// # What it must not do
//
// Dispatch input (clicks, keys, text): the agent's gate does, after
// [Check] allowed the action. [SelectKeys] works out the key presses that
// select options, which the gate sends as browser input; the helpers
// [Focus] and [ScrollBy] change only what the gate already allowed.
//
// # The guard
//
// [Check] with [Action.Arm] arms the frame's in-page guard when it allows
// the action ([ActionGuard] arms it for an action elsewhere, [ActionTool]
// for a page's WebMCP tool); [Disarm] reports what it caught and leaves it
// armed two seconds more for the scripts the action started, and [Late]
// reads, once, what it stopped then. It judges by the marks as they were
// when it armed (recorded from the marked elements down: the forms they
// cover, their fields, marked submitters, covered values) and by the marks
// now, whichever covers more. [NewDocumentGuard] arms it at the start of
// the documents a navigation loads in the action's window (a page that
// submits on load). A take stands it down at once ([StandDown]), so the
// User's own input never meets it.
//
// # Conformance watcher
//
// [WatchScript] (js/watch.js, for package check only; the runtime does not
// install it) records from document start when marks appear, when controls
// are first painted usable, and forms' submit and formdata events
// ([WatchReport]); [Inventory] lists marked elements with their raw values
// and the controls they cover. Both use the scanner's local ids and see
// what the scanner sees: open shadow roots and the closed roots
// [ScanFrame] adopted (a closed root is watched from the first scan that
// adopts it). The same script carries js/locate.js: [Locate] gives each
// element, by local id, a CSS selector that matches exactly it in its
// tree, its shadow hosts' selectors and its start tag, and [LocateFrame]
// the element that holds a child frame ([Location]), for reports a person
// reads.
//
// # Types
//
// [ScanFrame] returns a [Scan]: [Element] entries in reading order, with
// local ids (per frame document, kept by the scanner while the element
// lives) for the elements, and lines of text (ID 0) that hold every
// visible text of the document block by block, whitespace collapsed and
// never cut, with the ids of the controls and links inline in them
// ([Element.Parts]); [ScanFrom] reads one element's subtree. [Check] takes
// an [Action] and returns a [Verdict]: Stale, the covering [Mark]s, and for
// clicks the hit-tested point. [Read] lists every mark of a document, for
// tests.
//
// # Concurrency
//
// Every function is safe for concurrent use; calls into one frame run in
// the order the page receives them. There is no package state.
package marks
