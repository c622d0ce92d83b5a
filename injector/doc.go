// Package injector provides navigator.poppy.controller (browser-control v1,
// section 6) in every frame of the Company's hosts and nowhere else.
//
// It owns the main-world script in js/poppy.js and keeping its value in step
// with package control: [Injector.Set] is control's Apply hook, so every
// Company frame reads the new value before a change of control is reported
// done. It does not read marks.
//
// # How the value is kept and changed
//
// The script runs at document start, before any script of the page, and
// returns at once unless the document's origin is the Company's (an opaque
// origin, as in a sandboxed or data: frame, is nobody's; about:srcdoc and
// about:blank carry their parent's). In a Company document it defines
// navigator.poppy: a non-writable, non-configurable own property of
// navigator holding a frozen object whose controller getter only reads. The
// value lives in the script's closure. The object also carries a private
// field (#runtime) holding the one function that changes the value; page
// scripts cannot name a private field, so only the DevTools protocol can
// reach it: the runtime lists the object's private fields and calls that
// function by object id ([browser.Frame.CallPrivate]). No secret exists, so
// none can leak, and nothing on that path is a page global.
//
// Set decides per frame from the origin the browser reports for the frame's
// current document, and calls into it only when that origin is the
// Company's; the check and the call are bound to the same document. Nothing
// is ever evaluated in a frame of any other origin, so a third-party or
// sandboxed frame can neither learn of a change of control nor fail it, and
// what a sandboxed frame in a Company page defines is never called.
//
// Frames created later start with the current value, because the script is
// re-registered with it before existing frames are updated; a frame whose
// document has not started yet is skipped for that reason.
//
// Every tab is covered, popups included, and no page can hold up a switch
// (the User's take never waits for a page): a crashed or closed tab is
// skipped (its next document starts with the current value); a frame held
// by a dialog runs no script until the dialog is answered, and is set the
// moment it is; a frame that does not answer in 2 s is busy with a script
// of the page's, which is stopped (as a browser's page-unresponsive button
// does) before the frame is set.
//
// The script also counts the page's reads; [Injector.Reads] answers the
// count over the same private path, for the conformance checker (package
// check).
//
// An injector works in a scope ([Scope]): the whole browser, or one browser
// context when several Users' Sessions share a Chromium (each with its own
// holder of control). Its script and its changes then reach that
// context's frames only.
//
// On any host other than organization.domain and its subdomains the script
// returns before touching anything: navigator.poppy is undefined there and
// no global is added.
package injector
