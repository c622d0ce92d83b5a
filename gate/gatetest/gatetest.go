package gatetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/poppy-browser/poppy-browser/audit"
	"sync"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/marks/markstest"
)

// Page is a fake [gate.Surface]: a page of fixed scans whose verdicts come
// from a function, in a tab among others, with a dialog when a test opens
// one. It records every input it gets. It is safe for concurrent use.
type Page struct {
	mu      sync.Mutex
	doc     string
	url     string
	title   string
	frames  []gate.Frame
	scans   map[string]marks.Scan
	verdict func(frame string, a marks.Action) marks.Verdict
	inputs  []string
	checks  int
	hold    chan struct{} // while set, every scan waits for it to close
	// clickTo, when set, is where a click leads (a new document);
	// navFail, when set, fails every navigation with it.
	clickTo, navFail string
	tabs             []fakeTab // tabs[0] is this page's
	active           int
	tabMark          uint64 // the mark of the last tab opened
	dialog           *gate.DialogInfo
	gone             bool
}

// fakeTab is one tab of a [Page]'s browser; opened is its tab mark.
type fakeTab struct {
	url    string
	opened uint64
}

// HoldScans makes every scan wait until release is called (or its context
// ends): a read that stays in flight, to queue actions behind it.
func (p *Page) HoldScans() (release func()) {
	hold := make(chan struct{})
	p.mu.Lock()
	p.hold = hold
	p.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { close(hold) }) }
}

// NewPage returns the demo's check-in page at https://airline.test/check-in,
// one frame ("main") scanned as [markstest.CheckInScan], judged by [markstest.CheckInVerdicts].
func NewPage() *Page {
	const u = "https://airline.test/check-in"
	return &Page{
		doc: "doc1", url: u, title: "Check in",
		frames:  []gate.Frame{{ID: "main", URL: u}},
		scans:   map[string]marks.Scan{"main": markstest.CheckInScan()},
		verdict: markstest.CheckInVerdicts,
		tabs:    []fakeTab{{url: u}},
	}
}

// SetDocument makes the top frame hold a new document (a new epoch for
// the gate) at the same URL.
func (p *Page) SetDocument(doc string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.doc = doc
}

// SetFrames replaces the page's frame list (a frame that navigated).
func (p *Page) SetFrames(frames ...gate.Frame) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.frames = frames
}

// ClickLeadsTo makes every later click load url, a new document.
func (p *Page) ClickLeadsTo(url string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clickTo = url
}

// FailNavigations makes every later navigation fail with cause (such as
// "net::ERR_NAME_NOT_RESOLVED"), leaving the browser's error page.
func (p *Page) FailNavigations(cause string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.navFail = cause
}

// OpenDialog opens a JavaScript dialog in the page's tab, as a page's
// alert() or confirm() does.
func (p *Page) OpenDialog(typ, message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dialog = &gate.DialogInfo{Type: typ, Message: message}
}

// Close makes the browser gone: closed, crashed or disconnected.
func (p *Page) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gone = true
}

// SetScan replaces a frame's scan; with a new doc it is a new document
// (a new epoch for the gate).
func (p *Page) SetScan(frame string, s marks.Scan, doc string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.scans[frame] = s
	if doc != "" {
		p.doc = doc
	}
}

// Inputs lists the inputs the page got, in order.
func (p *Page) Inputs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.inputs...)
}

// Checks counts the marks checks the page answered.
func (p *Page) Checks() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.checks
}

func (p *Page) record(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inputs = append(p.inputs, s)
}

func (p *Page) Document(context.Context) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.doc, nil
}
func (p *Page) URL() string                  { p.mu.Lock(); defer p.mu.Unlock(); return p.url }
func (p *Page) Title(context.Context) string { p.mu.Lock(); defer p.mu.Unlock(); return p.title }
func (p *Page) Frames() []gate.Frame {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]gate.Frame(nil), p.frames...)
}
func (p *Page) Scan(ctx context.Context, f gate.Frame, _ int) (marks.Scan, error) {
	p.mu.Lock()
	hold := p.hold
	p.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return marks.Scan{}, fmt.Errorf("scanning frame: %w", ctx.Err())
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	sc, ok := p.scans[f.ID]
	if !ok {
		return marks.Scan{}, fmt.Errorf("scanning frame: no scanner")
	}
	return sc, nil
}
func (p *Page) Check(_ context.Context, f gate.Frame, a marks.Action) (marks.Verdict, error) {
	p.mu.Lock()
	p.checks++
	p.mu.Unlock()
	return p.verdict(f.ID, a), nil
}
func (p *Page) Disarm(context.Context, gate.Frame) (marks.Disarmed, error) {
	return marks.Disarmed{}, nil
}
func (p *Page) Focus(_ context.Context, f gate.Frame, id int) error {
	p.record(fmt.Sprintf("focus %s/%d", f.ID, id))
	return nil
}
func (p *Page) SelectValues(_ context.Context, f gate.Frame, id int, values []string) ([]string, error) {
	p.record(fmt.Sprintf("select %s/%d %q", f.ID, id, values))
	return values, nil
}
func (p *Page) ScrollBy(_ context.Context, f gate.Frame, id int, dx, dy float64) error {
	p.record(fmt.Sprintf("scroll %s/%d %v,%v", f.ID, id, dx, dy))
	return nil
}
func (p *Page) Offset(context.Context, gate.Frame) (float64, float64, error) { return 100, 200, nil }
func (p *Page) Click(_ context.Context, x, y float64) error {
	p.record(fmt.Sprintf("click %v,%v", x, y))
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.clickTo != "" {
		p.load(p.clickTo)
	}
	return nil
}

// load puts a new document at url in the top frame; p.mu is held.
func (p *Page) load(url string) {
	p.url, p.doc = url, p.doc+"+"
	p.frames = []gate.Frame{{ID: "main", URL: url}}
	p.tabs[0].url = url
}
func (p *Page) Wheel(_ context.Context, dx, dy float64) error {
	p.record(fmt.Sprintf("wheel %v,%v", dx, dy))
	return nil
}
func (p *Page) Press(_ context.Context, key string) error {
	p.record("press " + key)
	return nil
}
func (p *Page) InsertText(context.Context, string) error {
	p.record("insert text")
	return nil
}
func (p *Page) Navigate(_ context.Context, url string) error {
	p.record("navigate " + url)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.navFail != "" {
		p.load("chrome-error://chromewebdata/")
		return fmt.Errorf("navigating to %s: %s", url, p.navFail)
	}
	p.load(url)
	return nil
}
func (p *Page) Back(context.Context) error {
	p.record("back")
	return nil
}
func (p *Page) Forward(context.Context) error {
	p.record("forward")
	return nil
}
func (p *Page) Status() int { return 200 }
func (p *Page) Hover(_ context.Context, x, y float64) error {
	p.record(fmt.Sprintf("hover %v,%v", x, y))
	return nil
}
func (p *Page) Screenshot(context.Context) (browser.Screenshot, error) {
	return browser.Screenshot{}, errors.New("taking a screenshot: a fake page has no pixels")
}
func (p *Page) StopLoading(context.Context) error {
	p.record("stop loading")
	return nil
}
func (p *Page) Settle(context.Context) {}
func (p *Page) Gone() bool             { p.mu.Lock(); defer p.mu.Unlock(); return p.gone }

func (p *Page) Tabs(context.Context) ([]gate.TabInfo, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]gate.TabInfo, len(p.tabs))
	for i, t := range p.tabs {
		out[i] = gate.TabInfo{Index: i, URL: t.url, Active: i == p.active}
	}
	return out, 0
}

func (p *Page) TabIndex() int { return 0 }

func (p *Page) SelectTab(_ context.Context, index int) error {
	p.record(fmt.Sprintf("select tab %d", index))
	p.mu.Lock()
	defer p.mu.Unlock()
	if index >= len(p.tabs) {
		return browser.ErrNoTab
	}
	p.active = index
	return nil
}

func (p *Page) CloseTab(_ context.Context, index int) error {
	p.record(fmt.Sprintf("close tab %d", index))
	p.mu.Lock()
	defer p.mu.Unlock()
	if index == 0 || index >= len(p.tabs) { // the fake's own tab stays
		return browser.ErrNoTab
	}
	p.tabs = append(p.tabs[:index], p.tabs[index+1:]...)
	p.active = 0
	return nil
}

func (p *Page) NewTab(_ context.Context, url string) error {
	p.record("new tab " + url)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tabMark++
	p.tabs = append(p.tabs, fakeTab{url: url, opened: p.tabMark})
	p.active = len(p.tabs) - 1
	return nil
}

func (p *Page) Activity() gate.Activity {
	p.mu.Lock()
	defer p.mu.Unlock()
	return gate.Activity{Tabs: p.tabMark}
}

func (p *Page) OpenedSince(_ context.Context, a gate.Activity) []gate.TabInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []gate.TabInfo
	for i, t := range p.tabs {
		if t.opened > a.Tabs {
			out = append(out, gate.TabInfo{Index: i, URL: t.url, Active: i == p.active})
		}
	}
	return out
}

func (p *Page) Dialog() (gate.DialogInfo, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dialog == nil {
		return gate.DialogInfo{}, false
	}
	return *p.dialog, true
}

func (p *Page) HandleDialog(_ context.Context, accept bool, _ string) error {
	p.record(fmt.Sprintf("answer dialog %v", accept))
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dialog == nil {
		return browser.ErrNoDialog
	}
	p.dialog = nil
	return nil
}

// Fixture is a gate over a fake check-in page, with its control and audit
// log, on a fixed clock.
type Fixture struct {
	Page    *Page
	Control *control.Control
	Gate    *gate.Gate
	Audit   *bytes.Buffer
}

// New returns a fixture over [NewPage]; airline.test is the Company.
func New() *Fixture {
	p := NewPage()
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var buf bytes.Buffer
	audit := audit.New(&buf, func() time.Time { return clock }).WithRun("run-1")
	ctl := control.New(&control.Options{Now: func() time.Time { return clock }})
	g := gate.New(&gate.Options{Control: ctl, Audit: audit, CompanyHost: func(h string) bool { return h == "airline.test" },
		Surface: func() gate.Surface { return p }})
	return &Fixture{Page: p, Control: ctl, Gate: g, Audit: &buf}
}
