// Package injector provides navigator.poppy.controller (browser-control v1,
// section 6) in every frame of the Company's hosts and nowhere else.
//
// It owns the main-world script in js/poppy.js and keeping its value in step
// with package control: [Injector.Set] is a step of the hand-over control
// runs (package supervisor's), so every
// Company frame reads the new value (or runs no script until it does) before
// a change of control is reported done. It does not read marks.
//
// # How the value is kept and changed
//
// The script runs at document start, before any script of the page, and
// returns at once unless the document's origin is the Company's and one the
// browser declares itself to, as the Poppy-Extensions header goes
// (spec.MayDeclare): https, or cleartext http on a loopback host for a
// Company in development. A cleartext Company page elsewhere gets nothing:
// a network that can read it can run its own script in it. An opaque
// origin, as in a sandboxed or data: frame, is nobody's; about:srcdoc and
// about:blank carry their parent's. In a Company document it defines
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
// # The bound of a switch
//
// Every tab is covered, popups included, and no page can hold up a switch:
// [Injector.Set] returns within [SwitchBound] (3 s) whatever the pages do,
// once no Company frame can read another value. A crashed or closed tab is
// skipped (its next document starts with the current value). A frame held
// by a dialog runs no script until the dialog is answered, and is set the
// moment it is. A frame whose renderer does not answer in 0.8 s is busy: a
// script keeps its main thread, its own or that of a frame sharing its
// renderer (a data: frame, a same-site third party). That renderer is held
// ([browser.Frame.Hold], the debugger's pause, armed only in renderers of
// the Company's documents: the script names them with browser.Script.Holds,
// and every other renderer skips every pause, so a page elsewhere cannot
// time a debugger statement): every script in it stops at
// its next statement, none is ended, the frame is set while nothing runs,
// and the renderer resumes; to the page it is a long task. A renderer that
// does not stop in 0.8 s is busy outside script (a synchronous request): its
// pause stands, so it runs no statement before it stops, and the frame is
// set, then resumed, by background work the moment it does; so is one that
// stopped but is slow to answer (a loaded machine): it stays held until set. The agent's
// actions in such a tab wait for its main thread like any call (and fail
// page_busy at their bound).
//
// Each write of the value rereads it afterwards and writes again if control
// changed meanwhile, so a frame ends with the latest value whichever write
// lands last; no lock is held across a call to the browser. The background
// work (frames set after a dialog or a late pause) runs in [Injector.Run],
// which the injector's owner runs until it is done with it.
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
