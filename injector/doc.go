// Package injector provides navigator.poppy.controller (browser-control v1,
// section 6) in every frame of the Company's hosts and nowhere else.
//
// It owns the main-world script in js/poppy.js and keeping its value in step
// with package control: [Injector.Set] is control's Apply hook, so every
// Company frame reads the new value before a change of control is reported
// done. It does not read marks.
//
// The property is read-only to the page: navigator.poppy is a non-writable,
// non-configurable own property of navigator holding a frozen object whose
// controller is a getter. The value lives in that getter's closure; the
// runtime changes it by calling the getter directly over CDP with a per-run
// secret (see [browser.Frame.CallGetter]), a path that no page global is on.
// Frames created later start with the current value, because the script is
// re-registered with it before existing frames are updated.
//
// The getter also counts the page's reads; [Injector.Reads] answers the count
// over the same secret path, for the conformance checker (package check).
//
// On any host other than organization.domain and its subdomains the script
// returns before touching anything: navigator.poppy is undefined there and
// no global is added.
package injector
