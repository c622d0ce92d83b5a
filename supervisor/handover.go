package supervisor

import (
	"context"
	"errors"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// handover is what a change of holder does to a Session's browser: the
// [control.Handover] of its control. A take gives the pages to the User in
// four steps, and a return takes them back in the reverse order:
//
//	Take                                  Return
//	1. frames: every Company frame        1. screen: the agent's own viewport
//	   of every tab reads "user"             comes back (if a screen was shown)
//	2. guard: in each of those frames,    2. window: its own input is blocked
//	   right after it reads "user", the
//	   in-page guard stands down
//	3. window: the browser window's own   3. guard: nothing to undo; the
//	   input is let through (if guarded)     agent's next action arms it
//	4. screen: the pages are shown at     4. frames: every Company frame
//	   the User's screen size (if any)       reads "agent"
//
// Steps 1 and 2 run together, frame by frame, within the bounds of one
// switch (frames calls [handover.inFrame] in each Company frame, holding a
// busy renderer for both): an agent's run that has not disarmed its guard
// yet never judges the User's input. So no frame reads "user" while the
// window's input is blocked or its guard armed, no window input reaches a
// page that reads "agent", and the agent's next look after a return is at
// its own layout. The User's live view restarts its screencast itself when
// the size changes (package ui).
//
// Control calls it inside its serialized transition, one call at a time;
// it is not for any other caller (it would change what pages read without
// a change of holder). Failures the hand-over absorbs (a guard that could
// not stand down, a screen the pages could not follow, a failed put-back)
// are recorded in the log or the audit log; the ones it returns, control
// records.
type handover struct {
	frames controllerFrames // set by open
	guard  frameGuard       // nil: no in-page guard to stand down
	window windowInput      // nil: the window's own input is not guarded (headless)
	screen deviceScreen
	audit  *audit.Log

	shown bool // a screen of the User's was shown and not yet taken back
}

// controllerFrames sets what every Company frame reads from
// navigator.poppy.controller (package injector's Injector).
type controllerFrames interface {
	Set(ctx context.Context, c spec.Controller) error
}

// frameGuard stands down the in-page guard of one frame (package marks,
// for the Session's current control epoch).
type frameGuard interface {
	StandDown(ctx context.Context, f browser.Frame) error
}

// newDocumentsEnder is a frameGuard that also arms the guard in new
// documents for a while after an agent's action (package gate's window):
// a take ends that first.
type newDocumentsEnder interface {
	EndNewDocuments(ctx context.Context) error
	// ResumeNewDocuments undoes it after a take that failed.
	ResumeNewDocuments()
}

// windowInput is where window input is blocked: the whole browser, or one
// Session's browser context.
type windowInput interface {
	SetWindowInput(ctx context.Context, allowed bool) error
}

// deviceScreen shows pages on the User's screen (browser.Browser and
// browser.Context).
type deviceScreen interface {
	EmulateDevice(ctx context.Context, d *browser.Device) error
}

// putBackTimeout bounds putting the agent's state back after a failed
// take, whatever the take's ctx.
const putBackTimeout = 5 * time.Second

// newHandover returns the hand-over of guard (nil: none), window (nil:
// not guarded) and screen. Its frames come with open, since they run the
// hand-over's own step in each frame ([handover.inFrame]).
func newHandover(guard frameGuard, window windowInput, screen deviceScreen, log *audit.Log) *handover {
	return &handover{guard: guard, window: window, screen: screen, audit: log}
}

// open gives the hand-over its frames, with the agent holding the
// browser: the window's own input is blocked now.
func (h *handover) open(ctx context.Context, frames controllerFrames) error {
	h.frames = frames
	if h.window != nil {
		return h.window.SetWindowInput(ctx, false)
	}
	return nil
}

// Take gives the browser to the User, on screen d (nil: the agent's
// viewport stays), in the four steps above. If the frames or the window
// fail, it puts both back as
// the agent holds them and returns the error: the take fails. If the
// pages cannot follow d, they go back to the agent's viewport, the failure
// is recorded, and Take returns a nil screen: the User can act at any size.
func (h *handover) Take(ctx context.Context, d *control.Device) (*control.Device, error) {
	// 1 and 2. No new document arms the guard at its start any more;
	// every Company frame reads "user", and its guard stands down
	// (inFrame).
	if e, ok := h.guard.(newDocumentsEnder); ok {
		if err := e.EndNewDocuments(ctx); err != nil {
			h.record("ending the guard's window for new documents", err)
		}
	}
	if err := h.frames.Set(ctx, spec.ControllerUser); err != nil {
		h.putBack(ctx)
		return nil, err
	}
	// 3. The window's own input reaches the pages.
	if h.window != nil {
		if err := h.window.SetWindowInput(ctx, true); err != nil {
			h.putBack(ctx)
			return nil, err
		}
	}
	// 4. The pages at the User's screen size.
	if d == nil {
		return nil, nil
	}
	if err := h.show(ctx, d); err != nil {
		h.record("showing the pages on the user's screen", err)
		if err := h.show(ctx, nil); err != nil {
			h.record("showing the pages on the agent's viewport", err)
		}
		return nil, nil
	}
	return d, nil
}

// Return gives the browser back to the agent, in the reverse order of
// Take. Every step runs even when one before it failed; the errors of
// the window and the frames are returned (control still gives the agent
// control), a failure to restore the viewport is recorded.
func (h *handover) Return(ctx context.Context) error {
	// 1. The agent's own viewport.
	if h.shown {
		if err := h.show(ctx, nil); err != nil {
			h.record("showing the pages on the agent's viewport", err)
		}
	}
	// 2 to 4. The window's input blocked; the guard has nothing to undo;
	// every frame reads "agent".
	return h.toAgent(ctx)
}

// inFrame is a take's step 2, run by frames in each Company frame f right
// after it reads c: on a take, f's in-page guard stands down. A document
// without the marks script has no guard. It must answer while f's
// renderer is held (see injector.Options.Also); frames logs its error and
// does not fail the switch for it.
func (h *handover) inFrame(ctx context.Context, f browser.Frame, c spec.Controller) error {
	if c != spec.ControllerUser || h.guard == nil {
		return nil
	}
	err := h.guard.StandDown(ctx, f)
	if errors.Is(err, browser.ErrNoObject) {
		return nil
	}
	return err
}

// Resize shows the pages on d's screen (nil: the agent's viewport) while
// the User holds control.
func (h *handover) Resize(ctx context.Context, d *control.Device) error {
	return h.show(ctx, d)
}

// toAgent is a return's last two steps: the window's own input blocked,
// then every Company frame reads "agent".
func (h *handover) toAgent(ctx context.Context) error {
	var errs []error
	if h.window != nil {
		errs = append(errs, h.window.SetWindowInput(ctx, false))
	}
	errs = append(errs, h.frames.Set(ctx, spec.ControllerAgent))
	return errors.Join(errs...)
}

// putBack undoes what a failed take changed (some frames may read "user"
// already, the window may let input through), within putBackTimeout even
// when ctx is done.
func (h *handover) putBack(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), putBackTimeout)
	defer cancel()
	if err := h.toAgent(ctx); err != nil {
		h.record("restoring the agent after a failed take", err)
	}
	if e, ok := h.guard.(newDocumentsEnder); ok {
		e.ResumeNewDocuments()
	}
}

// show emulates d on the pages, or the agent's viewport with nil.
func (h *handover) show(ctx context.Context, d *control.Device) error {
	if d == nil {
		if err := h.screen.EmulateDevice(ctx, nil); err != nil {
			return err
		}
		h.shown = false
		return nil
	}
	h.shown = true // even if it fails: some pages may be at d's size
	return h.screen.EmulateDevice(ctx, &browser.Device{Width: d.Width, Height: d.Height, Scale: d.Scale, Mobile: d.Mobile, Touch: d.Touch})
}

// record writes a failure the hand-over absorbs to the audit log. The
// error comes from the browser and carries no User input.
func (h *handover) record(op string, err error) {
	_ = h.audit.Record(audit.Entry{Event: audit.EventError, Message: op + ": " + err.Error()}) // a failed write is the log's to report
}
