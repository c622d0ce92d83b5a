package gate

import (
	"context"
	"errors"
	"fmt"
	"github.com/poppy-browser/poppy-browser/browser"
	"sync"

	"github.com/poppy-browser/poppy-browser/marks"
)

// fakePage is a surface for the gate's unit tests: a page of fixed scans
// whose verdicts come from a function. It records every input it gets.
type fakePage struct {
	mu      sync.Mutex
	doc     string
	urlv    string
	titlev  string
	framesv []Frame
	scans   map[string]marks.Scan
	verdict func(frame string, a marks.Action) marks.Verdict
	inputs  []string
	checks  int
	// clickTo, when set, is where a click leads (a new document);
	// navFail, when set, fails every navigation with it, leaving the
	// browser's error page.
	clickTo, navFail string
}

func newFakePage() *fakePage {
	return &fakePage{
		doc:     "doc1",
		urlv:    "https://airline.test/check-in",
		titlev:  "Check in",
		framesv: []Frame{{ID: "main", URL: "https://airline.test/check-in"}},
		scans:   map[string]marks.Scan{},
		verdict: func(string, marks.Action) marks.Verdict {
			return marks.Verdict{Point: &marks.Rect{X: 10, Y: 20}}
		},
	}
}

func (f *fakePage) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inputs = append(f.inputs, s)
}

func (f *fakePage) got() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.inputs...)
}

func (f *fakePage) Document(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.doc, nil
}
func (f *fakePage) URL() string                  { f.mu.Lock(); defer f.mu.Unlock(); return f.urlv }
func (f *fakePage) Title(context.Context) string { f.mu.Lock(); defer f.mu.Unlock(); return f.titlev }
func (f *fakePage) Frames() []Frame              { f.mu.Lock(); defer f.mu.Unlock(); return f.framesv }
func (f *fakePage) Scan(_ context.Context, fr Frame, _ int) (marks.Scan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sc, ok := f.scans[fr.ID]
	if !ok {
		return marks.Scan{}, fmt.Errorf("scanning frame: no scanner")
	}
	return sc, nil
}
func (f *fakePage) Check(_ context.Context, fr Frame, a marks.Action) (marks.Verdict, error) {
	f.mu.Lock()
	f.checks++
	f.mu.Unlock()
	return f.verdict(fr.ID, a), nil
}
func (f *fakePage) Disarm(context.Context, Frame) (marks.Disarmed, error) {
	return marks.Disarmed{}, nil
}
func (f *fakePage) Focus(_ context.Context, fr Frame, id int) error {
	f.record(fmt.Sprintf("focus %s/%d", fr.ID, id))
	return nil
}
func (f *fakePage) SelectValues(_ context.Context, fr Frame, id int, values []string) ([]string, error) {
	f.record(fmt.Sprintf("select %s/%d %q", fr.ID, id, values))
	return values, nil
}
func (f *fakePage) ScrollBy(_ context.Context, fr Frame, id int, dx, dy float64) error {
	f.record(fmt.Sprintf("scroll %s/%d %v,%v", fr.ID, id, dx, dy))
	return nil
}
func (f *fakePage) Offset(context.Context, Frame) (float64, float64, error) { return 100, 200, nil }
func (f *fakePage) Click(_ context.Context, x, y float64) error {
	f.record(fmt.Sprintf("click %v,%v", x, y))
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.clickTo != "" {
		f.urlv, f.doc = f.clickTo, f.doc+"+"
		f.framesv = []Frame{{ID: "main", URL: f.clickTo}}
	}
	return nil
}
func (f *fakePage) Wheel(_ context.Context, dx, dy float64) error {
	f.record(fmt.Sprintf("wheel %v,%v", dx, dy))
	return nil
}
func (f *fakePage) Press(_ context.Context, key string) error {
	f.record("press " + key)
	return nil
}
func (f *fakePage) InsertText(context.Context, string) error {
	f.record("insert text")
	return nil
}
func (f *fakePage) Navigate(_ context.Context, url string) error {
	f.record("navigate " + url)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.navFail != "" {
		const errorPage = "chrome-error://chromewebdata/"
		f.urlv, f.doc = errorPage, f.doc+"+"
		f.framesv = []Frame{{ID: "main", URL: errorPage}}
		return fmt.Errorf("navigating to %s: %s", url, f.navFail)
	}
	f.urlv, f.doc = url, f.doc+"+"
	f.framesv = []Frame{{ID: "main", URL: url}}
	return nil
}
func (f *fakePage) Back(context.Context) error {
	f.record("back")
	return nil
}
func (f *fakePage) Forward(context.Context) error {
	f.record("forward")
	return nil
}
func (f *fakePage) Status() int { return 200 }
func (f *fakePage) Hover(_ context.Context, x, y float64) error {
	f.record(fmt.Sprintf("hover %v,%v", x, y))
	return nil
}
func (f *fakePage) Screenshot(context.Context) (browser.Screenshot, error) {
	return browser.Screenshot{}, errors.New("taking a screenshot: a fake page has no pixels")
}
func (f *fakePage) StopLoading(context.Context) error {
	f.record("stop loading")
	return nil
}
func (f *fakePage) Settle(context.Context) {}
