package agent

import (
	"context"
	"fmt"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
)

// frameInfo is one frame of the page as the gate sees it.
type frameInfo struct {
	ID       string
	ParentID string
	URL      string
}

// surface is everything the gate may do to a page. Only the gate holds one;
// its implementation over a real browser is [pageSurface]. It is a seam for
// the gate's unit tests, not an extension point: the MCP server and the
// built-in loop reach the page only through [Gate.Do].
type surface interface {
	// document identifies the top frame's current document (changes on
	// every new document, even at the same URL).
	document(ctx context.Context) (string, error)
	url() string
	title(ctx context.Context) string
	frames() []frameInfo

	scan(ctx context.Context, frame string) (marks.Scan, error)
	check(ctx context.Context, frame string, a marks.Action) (marks.Verdict, error)
	disarm(ctx context.Context, frame string) (marks.Disarmed, error)
	focus(ctx context.Context, frame string, id int) error
	selectValues(ctx context.Context, frame string, id int, values []string) ([]string, error)
	scrollBy(ctx context.Context, frame string, id int, dx, dy float64) error
	offset(ctx context.Context, frame string) (x, y float64, err error)

	click(ctx context.Context, x, y float64) error
	wheel(ctx context.Context, dx, dy float64) error
	press(ctx context.Context, key string) error
	insertText(ctx context.Context, text string) error
	navigate(ctx context.Context, url string) error
	back(ctx context.Context) error
	settle(ctx context.Context)
}

// pageSurface is the real surface: a browser page, read through the marks
// scanner and driven by real input.
type pageSurface struct {
	p      *browser.Page
	width  float64
	height float64
}

func (s *pageSurface) document(ctx context.Context) (string, error) {
	// The main frame's loader changes with every new document; the browser
	// tracks it from events, so this costs no round trip.
	// Before the first document commits it is "", an identity like any.
	return s.p.Document(), nil
}

func (s *pageSurface) url() string { return s.p.URL() }

func (s *pageSurface) title(ctx context.Context) string { return s.p.Title(ctx) }

func (s *pageSurface) frames() []frameInfo {
	fs := s.p.Frames()
	out := make([]frameInfo, len(fs))
	for i, f := range fs {
		out[i] = frameInfo{ID: string(f.ID), ParentID: string(f.ParentID), URL: f.URL}
	}
	return out
}

// frame finds a live frame by id.
func (s *pageSurface) frame(id string) (browser.Frame, error) {
	for _, f := range s.p.Frames() {
		if string(f.ID) == id {
			return f, nil
		}
	}
	return browser.Frame{}, fmt.Errorf("%w: %s", browser.ErrFrameGone, id)
}

func (s *pageSurface) scan(ctx context.Context, frame string) (marks.Scan, error) {
	f, err := s.frame(frame)
	if err != nil {
		return marks.Scan{}, err
	}
	return marks.ScanFrame(ctx, f)
}

func (s *pageSurface) check(ctx context.Context, frame string, a marks.Action) (marks.Verdict, error) {
	f, err := s.frame(frame)
	if err != nil {
		return marks.Verdict{}, err
	}
	return marks.Check(ctx, f, a)
}

func (s *pageSurface) disarm(ctx context.Context, frame string) (marks.Disarmed, error) {
	f, err := s.frame(frame)
	if err != nil {
		return marks.Disarmed{}, err
	}
	return marks.Disarm(ctx, f)
}

func (s *pageSurface) focus(ctx context.Context, frame string, id int) error {
	f, err := s.frame(frame)
	if err != nil {
		return err
	}
	return marks.Focus(ctx, f, id)
}

func (s *pageSurface) selectValues(ctx context.Context, frame string, id int, values []string) ([]string, error) {
	f, err := s.frame(frame)
	if err != nil {
		return nil, err
	}
	return marks.SelectValues(ctx, f, id, values)
}

func (s *pageSurface) scrollBy(ctx context.Context, frame string, id int, dx, dy float64) error {
	f, err := s.frame(frame)
	if err != nil {
		return err
	}
	return marks.ScrollBy(ctx, f, id, dx, dy)
}

func (s *pageSurface) offset(ctx context.Context, frame string) (float64, float64, error) {
	f, err := s.frame(frame)
	if err != nil {
		return 0, 0, err
	}
	return f.Offset(ctx, s.p)
}

func (s *pageSurface) click(ctx context.Context, x, y float64) error { return s.p.Click(ctx, x, y) }

func (s *pageSurface) wheel(ctx context.Context, dx, dy float64) error {
	return s.p.Mouse(ctx, browser.MouseEvent{Type: "wheel", X: s.width / 2, Y: s.height / 2, DeltaX: dx, DeltaY: dy})
}

func (s *pageSurface) press(ctx context.Context, key string) error { return s.p.Press(ctx, key) }

func (s *pageSurface) insertText(ctx context.Context, text string) error {
	return s.p.InsertText(ctx, text)
}

func (s *pageSurface) navigate(ctx context.Context, url string) error {
	_, err := s.p.Navigate(ctx, url)
	return err
}

func (s *pageSurface) back(ctx context.Context) error {
	_, err := s.p.Back(ctx)
	return err
}

// settle waits briefly for the top document to finish loading after input
// that may have started a navigation.
func (s *pageSurface) settle(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	_ = s.p.Settle(ctx)
}
