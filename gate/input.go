package gate

import (
	"context"
	"errors"

	"github.com/poppy-browser/poppy-browser/marks"
)

// ErrNoPoint is the error of pointer input for a verdict that found no
// visible box to point at.
var ErrNoPoint = errors.New("the element has no visible box")

// frameOffsetError is a frame that could not be located in the top frame.
type frameOffsetError struct{ err error }

func (e frameOffsetError) Error() string { return "locating the element's frame: " + e.err.Error() }
func (e frameOffsetError) Unwrap() error { return e.err }

// offsetter says where a frame's viewport sits in the top frame's.
type offsetter interface {
	Offset(ctx context.Context, f Frame) (x, y float64, err error)
}

// pointAt sends pointer input to the centre of the box a check found in
// frame f (verdict point), in top-frame coordinates. It is the one
// verdict-to-pointer step, of the gate's click and hover.
func pointAt(ctx context.Context, s offsetter, f Frame, v marks.Verdict, input func(ctx context.Context, x, y float64) error) error {
	if v.Point == nil {
		return ErrNoPoint
	}
	ox, oy, err := s.Offset(ctx, f)
	if err != nil {
		return frameOffsetError{err}
	}
	return input(ctx, ox+v.Point.X+v.Point.Width/2, oy+v.Point.Y+v.Point.Height/2)
}
