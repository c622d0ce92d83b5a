package control

import (
	"context"
	"errors"
	"fmt"

	"github.com/poppy-browser/poppy-browser/spec"
)

// Resize follows the User's screen while they hold control (a rotate, a
// resize of their window, another of their screens taking over): the pages
// are shown at d's size, or at the agent's own with nil. It returns
// [ErrNotHeld] while the agent holds control.
func (u *User) Resize(ctx context.Context, d *Device) error {
	c := u.c
	if err := c.lock(ctx); err != nil {
		return fmt.Errorf("resizing: %w", err)
	}
	defer c.unlock()
	if c.Holder() != spec.ControllerUser {
		return fmt.Errorf("resizing: %w", ErrNotHeld)
	}
	d = cloneDevice(d)
	if d == nil && c.Status().Device == nil {
		return nil
	}
	if c.handover == nil {
		return errors.New("resizing: the pages did not follow")
	}
	if err := c.handover.Resize(ctx, d); err != nil {
		c.recordError("showing the pages on the user's screen", err)
		return errors.New("resizing: the pages did not follow")
	}
	c.mu.Lock()
	c.st.Device = d
	c.mu.Unlock()
	return nil
}

func cloneDevice(d *Device) *Device {
	if d == nil {
		return nil
	}
	n := *d
	return &n
}
