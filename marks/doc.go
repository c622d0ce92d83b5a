// Package marks reads browser-control v1 marks (data-poppy-user-step) in a
// page and says which marks cover what an agent action would touch.
//
// It owns the in-page scanner, the files of js/scanner/ (split by concern:
// mark rules, tree and shadow roots, hit testing, the guard, the scan)
// joined in a fixed order, embedded and run at document start in the
// isolated world [World] of every frame ([Script]); Go calls into it with
// JSON arguments, one CDP round trip per call. Each file is one namespace
// object with its imports from earlier files at its top, checked without
// a browser (TestScannerImports). Plain concatenation, not ES modules
// bundled at go generate time (esbuild, a Go module, could): what runs in
// the page is the source as written, only the wire layout is generated,
// and the build needs no added dependency. Imports are taken once, when
// the scanner starts, so no call looks a name up through a namespace.
// The scanner never reads or writes the page's JavaScript globals, and
// every [Check] reads the marks from the DOM at that moment. A scan of the
// whole document is kept in the page while nothing it read changes (no DOM
// mutation, the same rendering, boxes, values and shadow roots), so that
// [ScanAgain] of an unchanged page costs about one walk of it and sends
// no entries; it only ever shows the page, never decides an action.
//
// It must not dispatch input (clicks, keys, text): the agent's gate does,
// after [Check] allowed the action. [SelectKeys] works out the key presses
// that select options, which the gate sends as browser input; the helpers
// [Focus] and [ScrollBy] change only what the gate already allowed.
//
// # Rules
//
// A mark value counts as [spec.KindOf] says. A control is covered by an
// interaction mark on itself, on an ancestor (a shadow host covers its
// shadow tree), or on its form owner (the browser's own: el.form, so the
// form= attribute counts; a form around a control that names another form
// does not cover it; a form-associated custom element is found in its
// form's elements). A click touches the element, the point it lands on (hit
// tested: another element there makes the verdict Obscured), the element as
// a widget, and its activation target: the nearest inclusive ancestor with
// activation behaviour (a span inside a button activates the button; a
// click inside a label, not on interactive content, activates the label's
// control), the form a submit button submits (formaction too; a button
// without type submits) and the controls a reset button resets. Enter in a
// field touches what HTML's implicit submission would (HTML 4.10.21.2): the
// default button, the first submit button in tree order (image buttons and
// form= owners too), nothing when it is disabled, or without one the form
// when at most one field blocks implicit submission; "\r", "\n", "Return"
// and "NumpadEnter" are Enter ([CanonicalKey]). Enter and Space
// on a focused button, link or ARIA widget activate it; any key but Tab on
// a covered element is covered. A select touches its marked options. A
// covered contenteditable or ARIA widget covers clicks on its descendants.
// Scrolling and reading are always allowed, but a wheel ([ActionWheel])
// touches a focused number field, whose value it steps. Marks add up, and a refused
// control in a submission form reports both marks.
//
// Closed shadow roots are out of JavaScript's reach: when a scan meets
// elements that may host one it has not looked into, [ScanFrame] has the
// browser hand their closed roots to the scanner over CDP
// ([browser.Frame.AdoptClosedShadowRoots]); from then on the scan, the
// check, the hit test, the focus and the guard look into them. Reading a
// host costs a round trip, and reading the whole document costs several
// times a scan, so the scanner names the hosts to read: custom elements,
// and the built-in elements that may host a root (DOM 4.2.14: a div, a
// span, a section ...) when they show no light content of their own (a
// host's shadow tree renders in place of its children), each once. A key
// press whose focus is inside a root not yet read ([Check]) reads its host
// too. A closed root on a built-in element that also has light children
// (slotted into it) is not seen.
//
// # The guard
//
// [Check] with [Action.Arm] arms the frame's in-page guard when it allows
// the action; [Disarm] disarms it and reports what it caught. While armed,
// a capturing listener of the isolated world stops (preventDefault and
// stopImmediatePropagation, before any page listener) a click, key press,
// text input, submit or formdata that reaches a covered element: the page
// moved a marked element under the pointer, moved focus, or its script
// submitted a marked form (requestSubmit, or form.submit(), which fires
// only formdata: the guard takes the form out of its tree for that moment,
// which stops the submission). submit and formdata stay in the form's
// shadow tree, so arming adds the guard's listeners to every open and
// adopted closed root. The gate arms it only between its check and the end
// of the agent's input, so the User's own input never meets it.
//
// # Conformance watcher
//
// [WatchScript] (js/watch.js, for package check only; the runtime does not
// install it) records from document start when marks appear, when controls
// are first painted usable, and forms' submit and formdata events
// ([WatchReport]); [Inventory] lists marked elements with their raw values and
// the controls they cover. Both use the scanner's local ids and see what the
// scanner sees: open shadow roots and the closed roots [ScanFrame] adopted
// (a closed root is watched from the first scan that adopts it). The same
// script carries js/locate.js: [Locate] gives each element, by local id, a
// CSS selector that matches exactly it in its tree, its shadow hosts'
// selectors and its start tag, and [LocateFrame] the element that holds a
// child frame ([Location]), for reports a person reads.
//
// # Types
//
// [ScanFrame] returns a [Scan]: [Element] entries in reading order, with
// local ids (per frame document, kept by the scanner while the element
// lives) for the elements, and lines of text (ID 0) that hold every
// visible text of the document block by block, whitespace collapsed and
// never cut, with the ids of the controls and links inline in them
// ([Element.Parts]); [ScanFrom] reads one element's subtree. A scan
// crosses CDP as one JSON string in a wire form (js/scanner/wire.js, read
// by wire.go): each entry an array of its fields by position, defaults
// left off, about half the bytes of the same entries as objects on a page
// of thousands of controls. The positions are one table, wirelayout.go's,
// which wire.go reads with and go generate writes js/scanner/layout.js
// from; TestWireMatchesScan holds the two forms to the same [Scan]. [Check]
// takes an [Action] and returns a [Verdict]: Stale, the covering [Mark]s,
// and for clicks the hit-tested point. [Read] lists every mark of a
// document, for tests.
//
// # Concurrency
//
// Every function is safe for concurrent use; calls into one frame run in
// the order the page receives them. There is no package state.
package marks
