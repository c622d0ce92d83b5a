package gate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
)

// pageSurface is the real surface: a browser page, read through the marks
// scanner and driven by real input.
type pageSurface struct {
	p      *browser.Page
	width  float64
	height float64

	mu sync.Mutex
	// scans is each frame's last scan of its whole document, for
	// marks.ScanAgain: a page that has not changed since sends no entries,
	// and one that changed sends only the entries of the blocks it scanned
	// again (the rest as runs of this scan's).
	scans map[string]marks.Scan
}

// maxKeptScans bounds the frames whose last scan is kept; past it they
// are all dropped (a page of many frames rescans them in full).
const maxKeptScans = 32

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
	if root != 0 {
		return marks.ScanFrom(ctx, f.handle, root)
	}
	s.mu.Lock()
	last, ok := s.scans[f.ID]
	s.mu.Unlock()
	var (
		sc  marks.Scan
		err error
	)
	if ok {
		sc, err = marks.ScanAgain(ctx, f.handle, last)
	} else {
		sc, err = marks.ScanFrom(ctx, f.handle, 0)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil || sc.Memo == "" {
		delete(s.scans, f.ID)
		return sc, err
	}
	if s.scans == nil || len(s.scans) >= maxKeptScans {
		s.scans = map[string]marks.Scan{}
	}
	s.scans[f.ID] = sc
	return sc, nil
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

// errNoTabs is what a tab call returns on a page that belongs to no tab
// list (a page the browser does not track as a tab).
var errNoTabs = errors.New("the page has no tabs")

func (s *pageSurface) Tabs(ctx context.Context) ([]TabInfo, int) {
	tabs := s.p.Tabs()
	if tabs == nil {
		return nil, -1
	}
	list := tabs.List(ctx)
	current := -1
	for _, t := range list {
		if t.Page == s.p {
			current = t.Index
		}
	}
	return tabInfos(list), current
}

func (s *pageSurface) TabIndex() int {
	if tabs := s.p.Tabs(); tabs != nil {
		return tabs.Index(s.p)
	}
	return -1
}

func (s *pageSurface) SelectTab(ctx context.Context, index int) error {
	if s.p.Tabs() == nil {
		return errNoTabs
	}
	_, err := s.p.Tabs().Select(ctx, index)
	return err
}

func (s *pageSurface) CloseTab(ctx context.Context, index int) error {
	if s.p.Tabs() == nil {
		return errNoTabs
	}
	return s.p.Tabs().Close(ctx, index)
}

func (s *pageSurface) NewTab(ctx context.Context, url string) error {
	if s.p.Tabs() == nil {
		return errNoTabs
	}
	_, _, err := s.p.Tabs().New(ctx, url)
	return err
}

func (s *pageSurface) Activity() Activity {
	a := Activity{FileChoosers: len(s.p.FileChoosers()), AuthChallenges: len(s.p.AuthChallenges())}
	if tabs := s.p.Tabs(); tabs != nil {
		a.Tabs = tabs.Mark()
	}
	for _, d := range s.p.Downloads() {
		a.Downloads = append(a.Downloads, d.Filename)
	}
	for _, f := range s.p.ChosenFiles() {
		a.Chosen = append(a.Chosen, ChosenFile{Label: f.Label, Name: f.Name, Size: f.Size})
	}
	return a
}

func (s *pageSurface) OpenedSince(ctx context.Context, a Activity) []TabInfo {
	tabs := s.p.Tabs()
	if tabs == nil {
		return nil
	}
	opened := tabs.OpenedSince(a.Tabs)
	if len(opened) == 0 {
		return nil
	}
	// Let the new tabs commit their first document, briefly, so the
	// result can say where they went.
	wctx, cancel := context.WithTimeout(ctx, settleTimeout)
	for _, t := range opened {
		_, _ = t.Page.WaitLoaded(wctx, func(u string) bool { return u != "" && u != "about:blank" })
	}
	cancel()
	return tabInfos(tabs.OpenedSince(a.Tabs))
}

func (s *pageSurface) Dialog() (DialogInfo, bool) {
	d, open := s.p.Dialog()
	return DialogInfo{Type: d.Type, Message: d.Message}, open
}

func (s *pageSurface) HandleDialog(ctx context.Context, accept bool, promptText string) error {
	return s.p.HandleDialog(ctx, accept, promptText)
}

func tabInfos(list []browser.Tab) []TabInfo {
	out := make([]TabInfo, len(list))
	for i, t := range list {
		out[i] = TabInfo{Index: t.Index, URL: t.URL, Title: t.Title, Active: t.Active}
		if t.Opener >= 0 {
			o := t.Opener
			out[i].Opener = &o
		}
	}
	return out
}
