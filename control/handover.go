package control

import (
	"context"
	"time"
)

// Handover is what a change of holder does to the browser, beyond
// control's own state: every Company frame's navigator.poppy, the
// window's own input, the pages' size on the User's screen. Package
// supervisor's hand-over is the one the runtime uses; it lists the steps
// of a take and of a return in order.
//
// Control calls it inside its serialized transition, one call at a time,
// before the change is published to [Control.Holder], subscribers or the
// audit log.
type Handover interface {
	// Take gives the pages to the User, shown on d's screen (nil: the
	// agent's viewport stays). It returns the screen the pages are shown
	// on: d, or nil when they could not follow it (the User can act at any
	// size; Take records why). An error fails the take, and the agent
	// keeps control: Take has put back what it changed.
	Take(ctx context.Context, d *Device) (shown *Device, err error)
	// Return gives the pages back to the agent, its own viewport first.
	// Control returns to the agent whatever it answers; an error is
	// recorded and returned to the User's channel.
	Return(ctx context.Context) error
	// Resize shows the pages on d's screen (nil: the agent's viewport)
	// while the User holds control.
	Resize(ctx context.Context, d *Device) error
}

// Recorder records what control does: one line per [Event], and one per
// failed step of a hand-over. Package audit's *Log is the runtime's.
type Recorder interface {
	RecordControl(e Event) error
	// RecordFailure records that op failed with err at t. err comes from
	// the [Handover] and carries no User input.
	RecordFailure(t time.Time, op string, err error) error
}

// handoverTake runs the Handover's Take. Without a Handover the pages
// keep the agent's viewport: no screen is shown.
func (c *Control) handoverTake(ctx context.Context, d *Device) (*Device, error) {
	if c.handover == nil {
		return nil, nil
	}
	shown, err := c.handover.Take(ctx, d)
	if err != nil {
		return nil, err
	}
	return cloneDevice(shown), nil
}

// handoverReturn runs the Handover's Return, if any.
func (c *Control) handoverReturn(ctx context.Context) error {
	if c.handover == nil {
		return nil
	}
	return c.handover.Return(ctx)
}
