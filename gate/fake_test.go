package agent

import (
	"context"
	"fmt"
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
	framesv []frameInfo
	scans   map[string]marks.Scan
	verdict func(frame string, a marks.Action) marks.Verdict
	inputs  []string
	checks  int
}

func newFakePage() *fakePage {
	return &fakePage{
		doc:     "doc1",
		urlv:    "https://airline.test/check-in",
		titlev:  "Check in",
		framesv: []frameInfo{{ID: "main", URL: "https://airline.test/check-in"}},
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

func (f *fakePage) document(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.doc, nil
}
func (f *fakePage) url() string                  { f.mu.Lock(); defer f.mu.Unlock(); return f.urlv }
func (f *fakePage) title(context.Context) string { f.mu.Lock(); defer f.mu.Unlock(); return f.titlev }
func (f *fakePage) frames() []frameInfo          { f.mu.Lock(); defer f.mu.Unlock(); return f.framesv }
func (f *fakePage) scan(_ context.Context, frame string) (marks.Scan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sc, ok := f.scans[frame]
	if !ok {
		return marks.Scan{}, fmt.Errorf("scanning frame: no scanner")
	}
	return sc, nil
}
func (f *fakePage) check(_ context.Context, frame string, a marks.Action) (marks.Verdict, error) {
	f.mu.Lock()
	f.checks++
	f.mu.Unlock()
	return f.verdict(frame, a), nil
}
func (f *fakePage) disarm(context.Context, string) (marks.Disarmed, error) {
	return marks.Disarmed{}, nil
}
func (f *fakePage) focus(_ context.Context, frame string, id int) error {
	f.record(fmt.Sprintf("focus %s/%d", frame, id))
	return nil
}
func (f *fakePage) selectValues(_ context.Context, frame string, id int, values []string) ([]string, error) {
	f.record(fmt.Sprintf("select %s/%d %q", frame, id, values))
	return values, nil
}
func (f *fakePage) scrollBy(_ context.Context, frame string, id int, dx, dy float64) error {
	f.record(fmt.Sprintf("scroll %s/%d %v,%v", frame, id, dx, dy))
	return nil
}
func (f *fakePage) offset(context.Context, string) (float64, float64, error) { return 100, 200, nil }
func (f *fakePage) click(_ context.Context, x, y float64) error {
	f.record(fmt.Sprintf("click %v,%v", x, y))
	return nil
}
func (f *fakePage) wheel(_ context.Context, dx, dy float64) error {
	f.record(fmt.Sprintf("wheel %v,%v", dx, dy))
	return nil
}
func (f *fakePage) press(_ context.Context, key string) error {
	f.record("press " + key)
	return nil
}
func (f *fakePage) insertText(context.Context, string) error {
	f.record("insert text")
	return nil
}
func (f *fakePage) navigate(_ context.Context, url string) error {
	f.record("navigate " + url)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.urlv, f.doc = url, f.doc+"+"
	f.framesv = []frameInfo{{ID: "main", URL: url}}
	return nil
}
func (f *fakePage) back(context.Context) error {
	f.record("back")
	return nil
}
func (f *fakePage) settle(context.Context) {}
