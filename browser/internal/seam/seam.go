// Package seam carries the few operations package browser keeps for its
// test helper, package browsertest, and for nobody else: a viewport of a
// chosen size, a click as from the browser's own window, the console of a
// page, the profile on disk. As public API they would let a caller change a
// page around the gate, or lean on details the runtime does not promise.
//
// Package browser fills the hooks once, when it is initialised, and never
// changes them; browsertest calls them. The page and browser arguments are
// a *browser.Page and a *browser.Browser, typed any because package browser
// imports this one. No other package may import it (Go's internal rule
// keeps it inside browser/).
package seam

import "context"

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

// The hooks, set by package browser at initialisation.
var (
	// SetViewport makes page's viewport width x height CSS pixels.
	SetViewport func(ctx context.Context, page any, width, height int) error
	// WindowClick clicks page at (x, y) as a person at the window would,
	// without lifting a window-input block.
	WindowClick func(ctx context.Context, page any, x, y float64) error
	// WatchLog calls fn with every console line of page until stop.
	WatchLog func(page any, fn func(LogLine)) (stop func())
	// ProfileDir is the profile directory of a launched browser.
	ProfileDir func(browser any) string
	// DebuggerPauses counts the debugger pauses of every target of
	// browser since it started, held or not.
	DebuggerPauses func(browser any) int64
)
