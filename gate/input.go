package gate

import (
	"context"
	"errors"
	"fmt"

	"github.com/poppy-browser/poppy-browser/browser"
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
// verdict-to-pointer step: the gate's click and hover, and [Input.Click].
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

// Input dispatches real input to an element of a page the way [Gate.Do]'s
// dispatch step does, for a caller that judged the action itself with
// [marks.Check]: package check's probes, which give the input an agent
// would. It takes no lease, reads no controller and records nothing; the
// caller owns that. The zero value is not usable: set Page and Frame.
type Input struct {
	Page  *browser.Page
	Frame browser.Frame
}

func (in Input) surface() (*pageSurface, Frame) {
	return &pageSurface{p: in.Page}, Frame{ID: string(in.Frame.ID), ParentID: string(in.Frame.ParentID), URL: in.Frame.URL, handle: in.Frame}
}

// Click clicks where the verdict of a click check points; [ErrNoPoint]
// when it found no visible box.
func (in Input) Click(ctx context.Context, v marks.Verdict) error {
	s, f := in.surface()
	if err := pointAt(ctx, s, f, v, s.Click); err != nil {
		return fmt.Errorf("clicking: %w", err)
	}
	return nil
}

// Press focuses the element with local id and presses key (a Playwright
// key name) on it.
func (in Input) Press(ctx context.Context, id int, key string) error {
	s, f := in.surface()
	if err := s.Focus(ctx, f, id); err != nil {
		return err
	}
	return s.Press(ctx, key)
}

// Type focuses the element with local id and types text into it.
func (in Input) Type(ctx context.Context, id int, text string) error {
	s, f := in.surface()
	if err := s.Focus(ctx, f, id); err != nil {
		return err
	}
	return s.InsertText(ctx, text)
}

// Select selects the options of the native select with local id whose
// value or label is one of values, and returns the selected values.
func (in Input) Select(ctx context.Context, id int, values []string) ([]string, error) {
	s, f := in.surface()
	return s.SelectValues(ctx, f, id, values)
}
