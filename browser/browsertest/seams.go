package browsertest

import (
	"context"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/internal/seam"
)

// What tests need of a page that package browser keeps out of its API: a
// caller of these could change a page around the gate or lean on details the
// runtime does not promise.

// SetViewport makes p's viewport width x height CSS pixels (device scale 1,
// not mobile), as a window of that size would.
func SetViewport(ctx context.Context, p *browser.Page, width, height int) error {
	return p.Seam(seam.Key{}).SetViewport(ctx, width, height)
}

// WindowClick clicks p at (x, y), viewport CSS pixels, the way a person at
// the browser's window would: unlike [browser.Page.Click] it does not lift
// a block of window input ([browser.Browser.SetWindowInput]), so a blocked
// page ignores it.
func WindowClick(ctx context.Context, p *browser.Page, x, y float64) error {
	return p.Seam(seam.Key{}).WindowClick(ctx, x, y)
}

// LogLine is a console message or an uncaught exception of one of a page's
// frames.
type LogLine struct {
	// Exception says the line is an uncaught exception
	// (Runtime.exceptionThrown), not a console call.
	Exception bool
	Level     string // console call type ("log", "error", "warning" ...); "exception"
	Text      string // the message, or the exception's description
	URL       string // the script or document it came from, when the browser says
}

func (l LogLine) String() string {
	if l.URL == "" {
		return l.Level + ": " + l.Text
	}
	return l.Level + ": " + l.Text + " (" + l.URL + ")"
}

// WatchLog calls fn with every console message and uncaught exception of
// p's frames (out-of-process iframes included, those attached later too)
// until stop is called. fn runs on the browser's event loop, in event
// order: it must be quick and must not call the browser.
func WatchLog(p *browser.Page, fn func(LogLine)) (stop func()) {
	return p.Seam(seam.Key{}).WatchLog(func(l seam.LogLine) { fn(LogLine(l)) })
}

// ProfileDir is b's profile directory: the temporary one [browser.Launch]
// made (Close removes it) or the Options' UserDataDir; "" for an attached
// browser.
func ProfileDir(b *browser.Browser) string { return b.Seam(seam.Key{}).ProfileDir() }

// DebuggerPauses counts the debugger pauses of every page and frame of b
// since it started (a page's debugger statement that stopped it, or a
// hold of a busy renderer): a test asserts a page's statements reach no
// one.
func DebuggerPauses(b *browser.Browser) int64 { return b.Seam(seam.Key{}).DebuggerPauses() }
