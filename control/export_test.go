package control

import (
	"context"
	"testing"

	"github.com/poppy-browser/poppy-browser/spec"
)

// Helpers of the package's own tests, for its external tests (package
// control_test, which may import audit: audit imports control).
type StepClock = stepClock

var (
	T0          = t0
	TestContext = testContext
)

// RunOps runs ops (request, take, handback, cancel, observed), none of
// which may fail.
func RunOps(ctx context.Context, t *testing.T, c *Control, ops ...string) {
	t.Helper()
	steps := make([]step, len(ops))
	for i, op := range ops {
		steps[i] = step{op: op}
	}
	run(ctx, t, c, steps)
}

// Hooks is a [Handover] made of two functions, for tests: Apply is what
// every frame reads (the holder), Device the pages' screen (nil: the
// agent's viewport). Its Take applies "user", puts "agent" back if that
// fails, then shows d (back to the agent's viewport if that fails); its
// Return gives the agent's viewport back (if a screen was shown) and then
// applies "agent". Nil functions do nothing; a nil Device shows no screen.
type Hooks struct {
	Apply  func(ctx context.Context, to spec.Controller) error
	Device func(ctx context.Context, d *Device) error

	shown bool // a screen was shown
}

func (h *Hooks) apply(ctx context.Context, to spec.Controller) error {
	if h.Apply == nil {
		return nil
	}
	return h.Apply(ctx, to)
}

func (h *Hooks) Take(ctx context.Context, d *Device) (*Device, error) {
	if err := h.apply(ctx, spec.ControllerUser); err != nil {
		_ = h.apply(context.WithoutCancel(ctx), spec.ControllerAgent)
		return nil, err
	}
	if d == nil || h.Device == nil {
		return nil, nil
	}
	h.shown = true
	if err := h.Device(ctx, d); err != nil {
		if h.Device(ctx, nil) == nil {
			h.shown = false
		}
		return nil, nil
	}
	return d, nil
}

func (h *Hooks) Return(ctx context.Context) error {
	if h.shown && h.Device(ctx, nil) == nil {
		h.shown = false
	}
	return h.apply(ctx, spec.ControllerAgent)
}

func (h *Hooks) Resize(ctx context.Context, d *Device) error {
	if h.Device == nil {
		return errNoDevice
	}
	h.shown = true
	return h.Device(ctx, d)
}

var errNoDevice = errorString("no device hook")

type errorString string

func (e errorString) Error() string { return string(e) }
