// Package seam carries the few operations package browser keeps for its
// test helper, package browsertest, and for nobody else: a viewport of a
// chosen size, a click as from the browser's own window, the console of a
// page, the profile on disk. As public API they would let a caller change a
// page around the gate, or lean on details the runtime does not promise.
//
// They are two small interfaces, [Page] and [Browser], that a
// *browser.Page and a *browser.Browser hand out from their Seam method
// for a [Key]. Only a package that can import this one can name a Key,
// and Go's internal rule keeps that inside browser/: browsertest asks,
// everybody else cannot. There is no package state and nothing to set up.
package seam

import "context"

// Key is what a caller shows to be handed a seam. Its zero value is the
// key; only a package allowed to import seam can write it.
type Key struct{}

// Page is what tests need of a page beyond its API.
type Page interface {
	// SetViewport makes the page's viewport width x height CSS pixels.
	SetViewport(ctx context.Context, width, height int) error
	// WindowClick clicks the page at (x, y) as a person at the window
	// would, without lifting a window-input block.
	WindowClick(ctx context.Context, x, y float64) error
	// WatchLog calls fn with every console line of the page until stop.
	WatchLog(fn func(LogLine)) (stop func())
}

// Browser is what tests need of a browser beyond its API.
type Browser interface {
	// ProfileDir is the profile directory of a launched browser.
	ProfileDir() string
	// DebuggerPauses counts the debugger pauses of every target of the
	// browser since it started, held or not.
	DebuggerPauses() int64
}

// LogLine is a console message or an uncaught exception of one of a page's
// frames, as WatchLog reports it (browsertest.LogLine is the same struct).
type LogLine struct {
	// Exception says the line is an uncaught exception
	// (Runtime.exceptionThrown), not a console call.
	Exception bool
	Level     string // console call type ("log", "error", "warning" ...); "exception"
	Text      string // the message, or the exception's description
	URL       string // the script or document it came from, when the browser says
}
