package gate

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
)

// settleTimeout bounds the wait for a navigation that input may start.
const settleTimeout = 3 * time.Second

// Frame is one frame of the page as one gate run sees it: the frame list
// is read once per run and its values are passed along, so nothing turns
// an id back into a frame by searching the list again.
type Frame struct {
	ID       string
	ParentID string // "" for the top frame
	URL      string
	handle   browser.Frame // zero on a [Surface] other than a browser page
}

// Surface is everything the gate may do to a page. The gate's own
// implementation drives a [browser.Page] through the marks scanner and
// real input. It is a seam for tests of the gate and of its users (a fake
// page, as package gatetest has), not an extension point: the MCP server
// and the built-in loop reach the page only through [Gate.Do].
type Surface interface {
	// Document identifies the top frame's current document (it changes
	// on every new document, even at the same URL).
	Document(ctx context.Context) (string, error)
	URL() string
	Title(ctx context.Context) string
	// Frames lists the page's frames, parents first, the top frame first.
	Frames() []Frame

	// Status is the HTTP status of the top frame's document; 0 when
	// unknown.
	Status() int
	// Scan reads a frame, or with root (a local id) one element's subtree.
	Scan(ctx context.Context, f Frame, root int) (marks.Scan, error)
	Check(ctx context.Context, f Frame, a marks.Action) (marks.Verdict, error)
	Disarm(ctx context.Context, f Frame) (marks.Disarmed, error)
	Focus(ctx context.Context, f Frame, id int) error
	SelectValues(ctx context.Context, f Frame, id int, values []string) ([]string, error)
	ScrollBy(ctx context.Context, f Frame, id int, dx, dy float64) error
	// Offset is where the frame's viewport sits in the top frame's.
	Offset(ctx context.Context, f Frame) (x, y float64, err error)

	Click(ctx context.Context, x, y float64) error
	// Hover moves the pointer to (x, y) without pressing.
	Hover(ctx context.Context, x, y float64) error
	// Screenshot is a PNG of the whole page (see browser.Screenshot).
	Screenshot(ctx context.Context) (browser.Screenshot, error)
	Wheel(ctx context.Context, dx, dy float64) error
	Press(ctx context.Context, key string) error
	InsertText(ctx context.Context, text string) error
	Navigate(ctx context.Context, url string) error
	Back(ctx context.Context) error
	Forward(ctx context.Context) error
	// StopLoading stops a navigation in flight, as the browser's stop
	// button does.
	StopLoading(ctx context.Context) error
	// Settle waits, briefly, for a navigation input may have started.
	Settle(ctx context.Context)
}

// pageSurface is the real surface: a browser page, read through the marks
// scanner and driven by real input.
type pageSurface struct {
	p      *browser.Page
	width  float64
	height float64
}

// Gone reports whether the page's connection has ended: the browser
// closed, crashed or went away (an attached browser of a pool).
func (s *pageSurface) Gone() bool { return s.p.BrowserGone() != nil }

func (s *pageSurface) Document(ctx context.Context) (string, error) {
	// The main frame's loader changes with every new document; the browser
	// tracks it from events, so this costs no round trip.
	// Before the first document commits it is "", an identity like any.
	return s.p.Document(), nil
}

func (s *pageSurface) URL() string { return s.p.URL() }

func (s *pageSurface) Title(ctx context.Context) string { return s.p.Title(ctx) }

func (s *pageSurface) Frames() []Frame {
	fs := s.p.Frames()
	out := make([]Frame, len(fs))
	for i, f := range fs {
		out[i] = Frame{ID: string(f.ID), ParentID: string(f.ParentID), URL: f.URL, handle: f}
	}
	return out
}

func (s *pageSurface) Status() int { return s.p.Status() }

func (s *pageSurface) Scan(ctx context.Context, f Frame, root int) (marks.Scan, error) {
	return marks.ScanFrom(ctx, f.handle, root)
}

func (s *pageSurface) Check(ctx context.Context, f Frame, a marks.Action) (marks.Verdict, error) {
	return marks.Check(ctx, f.handle, a)
}

func (s *pageSurface) Disarm(ctx context.Context, f Frame) (marks.Disarmed, error) {
	return marks.Disarm(ctx, f.handle)
}

func (s *pageSurface) Focus(ctx context.Context, f Frame, id int) error {
	return marks.Focus(ctx, f.handle, id)
}

// SelectValues selects as a person at the keyboard does: it focuses the
// select and presses the keys marks works out, so the page sees real
// keydown, input and change events; then it reads what is selected.
func (s *pageSurface) SelectValues(ctx context.Context, f Frame, id int, values []string) ([]string, error) {
	sel, err := marks.SelectKeys(ctx, f.handle, id, values)
	if err != nil {
		return nil, err
	}
	if len(sel.Keys) > 0 {
		if err := marks.Focus(ctx, f.handle, id); err != nil {
			return nil, err
		}
		for _, k := range sel.Keys {
			if err := s.p.Press(ctx, k); err != nil {
				return nil, fmt.Errorf("selecting options: %w", err)
			}
		}
	}
	got, err := marks.SelectedValues(ctx, f.handle, id)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(got, sel.Values) {
		return nil, fmt.Errorf("selecting options: the select shows %q after the keys, not %q", got, sel.Values)
	}
	return got, nil
}

func (s *pageSurface) ScrollBy(ctx context.Context, f Frame, id int, dx, dy float64) error {
	return marks.ScrollBy(ctx, f.handle, id, dx, dy)
}

func (s *pageSurface) Offset(ctx context.Context, f Frame) (float64, float64, error) {
	return f.handle.Offset(ctx, s.p)
}

func (s *pageSurface) Click(ctx context.Context, x, y float64) error { return s.p.Click(ctx, x, y) }

func (s *pageSurface) Hover(ctx context.Context, x, y float64) error {
	return s.p.Mouse(ctx, browser.MouseEvent{Type: "move", X: x, Y: y})
}

func (s *pageSurface) Screenshot(ctx context.Context) (browser.Screenshot, error) {
	return s.p.Screenshot(ctx)
}

func (s *pageSurface) Wheel(ctx context.Context, dx, dy float64) error {
	return s.p.Mouse(ctx, browser.MouseEvent{Type: "wheel", X: s.width / 2, Y: s.height / 2, DeltaX: dx, DeltaY: dy})
}

func (s *pageSurface) Press(ctx context.Context, key string) error { return s.p.Press(ctx, key) }

func (s *pageSurface) InsertText(ctx context.Context, text string) error {
	return s.p.InsertText(ctx, text)
}

func (s *pageSurface) Navigate(ctx context.Context, url string) error {
	_, err := s.p.Navigate(ctx, url)
	return err
}

func (s *pageSurface) Back(ctx context.Context) error {
	_, err := s.p.Back(ctx)
	return err
}

func (s *pageSurface) Forward(ctx context.Context) error {
	_, err := s.p.Forward(ctx)
	return err
}

func (s *pageSurface) StopLoading(ctx context.Context) error { return s.p.StopLoading(ctx) }

func (s *pageSurface) Settle(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	_ = s.p.Settle(ctx)
}
