package browser

import (
	"context"
	"errors"
	"fmt"

	"github.com/chromedp/cdproto"

	cdpconn "github.com/poppy-browser/poppy-browser/browser/internal/cdp"
)

// The typed failures of this package. Each call that fails for one of these
// reasons returns an error that matches it with errors.Is, so the caller can
// turn it into a result without reading error text.
var (
	// ErrBrowserGone: the browser process died or its connection closed.
	// Every later call fails at once with it.
	ErrBrowserGone = cdpconn.ErrBrowserGone
	// ErrFrameGone: the frame navigated away or was removed.
	ErrFrameGone = cdpconn.ErrFrameGone
	// ErrTabClosed: the tab was closed (by the page, the User or a call).
	ErrTabClosed = errors.New("the tab is closed")
	// ErrCrashed: the tab's renderer crashed; a navigation recovers it.
	ErrCrashed = errors.New("the tab crashed")
	// ErrDialogOpen: a JavaScript dialog (alert, confirm, prompt,
	// beforeunload) holds the tab; answer it with [Page.HandleDialog].
	ErrDialogOpen = errors.New("a dialog is open in the tab")
	// ErrPageBusy: the page's main thread did not answer within the bound
	// (an endless script, a huge page), see [Options.BusyTimeout].
	ErrPageBusy = errors.New("the page is busy")
	// ErrLoadTimeout: a navigation did not commit within [Options.LoadTimeout].
	ErrLoadTimeout = errors.New("the page did not load in time")
	// ErrNoObject means the object or property asked for is not in that frame.
	ErrNoObject = errors.New("no such object")
	// ErrNoHistory means there is no page to go back or forward to.
	ErrNoHistory = errors.New("no page there in the history")
)

// JSON-RPC error codes Chromium's DevTools protocol answers with.
const (
	codeServerError     = -32000 // a command failed (no such context, frame, node)
	codeSessionNotFound = -32001 // the flat session was detached
	codeInvalidParams   = -32602 // e.g. no target with that id
)

// cdpCode is the JSON-RPC code of a protocol error, 0 for anything else.
func cdpCode(err error) int64 {
	var e *cdproto.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// isGone reports errors that mean the target, frame or browser went away,
// which is normal while pages navigate and close. Protocol errors are
// matched by code: a detached session answers codeSessionNotFound.
func isGone(err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, ErrBrowserGone), errors.Is(err, ErrFrameGone),
		errors.Is(err, ErrTabClosed), errors.Is(err, ErrCrashed),
		errors.Is(err, context.Canceled):
		return true
	}
	return cdpCode(err) == codeSessionNotFound
}

// gone wraps err with ErrFrameGone when it is a protocol error from a
// target that has since gone away, or a detached session.
func gone(err error) error {
	if err == nil || errors.Is(err, ErrFrameGone) || errors.Is(err, ErrBrowserGone) ||
		errors.Is(err, ErrTabClosed) || errors.Is(err, ErrCrashed) {
		return err
	}
	if cdpCode(err) == codeSessionNotFound {
		return fmt.Errorf("%w: %v", ErrFrameGone, err)
	}
	return err
}
