package gate

import (
	"context"
	"errors"
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

// Surface is the seam where the gate's decisions end: the page a run
// reads before anything else (which document it shows, where, its frames,
// whether the browser is still there). What else the gate asks of the page
// it declares in the small interfaces below, each named for the steps that
// use it: [Marks], [Input], [Navigation], [TabSet] (tabs and dialogs) and
// [Picture]. The gate finds each on the surface; a surface that lacks one
// answers as a page that cannot do it (an action that needs it fails with
// page_error; without a TabSet, the page is alone in its browser and has
// no dialog). So a test fakes only the interfaces it exercises; the gate's
// own implementation drives a [browser.Page] through the marks scanner and
// real input and has them all, as has the fake page of package gatetest.
// Surface is a seam for tests of the gate and of its users, not an
// extension point: the MCP server and the built-in loop reach the page
// only through [Gate.Do].
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
	// Gone reports whether the browser is gone (closed, crashed, or the
	// connection to it ended).
	Gone() bool
}

// Marks is the marks scanner in one frame: the snapshot's scan (root, a
// local id, reads one element's subtree), step 3's check, which arms the
// in-page guard, and the disarm after dispatch.
type Marks interface {
	Scan(ctx context.Context, f Frame, root int) (marks.Scan, error)
	Check(ctx context.Context, f Frame, a marks.Action) (marks.Verdict, error)
	Disarm(ctx context.Context, f Frame) (marks.Disarmed, error)
}

// Input is the real input an action dispatches under the lease. Points
// are in the top frame's viewport; Offset is where a frame's viewport
// sits in it.
type Input interface {
	Offset(ctx context.Context, f Frame) (x, y float64, err error)
	Click(ctx context.Context, x, y float64) error
	// Hover moves the pointer to (x, y) without pressing.
	Hover(ctx context.Context, x, y float64) error
	// Wheel scrolls under the pointer at the viewport's centre.
	Wheel(ctx context.Context, dx, dy float64) error
	Focus(ctx context.Context, f Frame, id int) error
	Press(ctx context.Context, key string) error
	InsertText(ctx context.Context, text string) error
	SelectValues(ctx context.Context, f Frame, id int, values []string) ([]string, error)
	ScrollBy(ctx context.Context, f Frame, id int, dx, dy float64) error
}

// Navigation loads pages, under the navigation lease a take stops.
type Navigation interface {
	Navigate(ctx context.Context, url string) error
	Back(ctx context.Context) error
	Forward(ctx context.Context) error
	// StopLoading stops a navigation in flight, as the browser's stop
	// button does.
	StopLoading(ctx context.Context) error
	// Settle waits, briefly, for a navigation input may have started.
	Settle(ctx context.Context)
}

// Picture is the screenshot's source: a PNG of the whole page (see
// browser.Screenshot).
type Picture interface {
	Screenshot(ctx context.Context) (browser.Screenshot, error)
}

// TabSet is the browser's tabs around the page, the tab's dialog, and what
// the page did that a snapshot does not show. Errors are the browser's
// sentinels (browser.ErrNoTab, browser.ErrNoDialog).
type TabSet interface {
	// Tabs lists the open tabs and the index of this page's tab (-1 when
	// it is not among them).
	Tabs(ctx context.Context) (tabs []TabInfo, current int)
	// TabIndex is the index of this page's tab (-1 when it is not among
	// them) without a round trip: every result reports it.
	TabIndex() int
	SelectTab(ctx context.Context, index int) error
	CloseTab(ctx context.Context, index int) error
	// NewTab opens a tab at url ("" for a blank one); it becomes the
	// active one.
	NewTab(ctx context.Context, url string) error
	// Activity is what the tab has seen so far; OpenedSince lists the
	// tabs opened after it, once they have briefly had the chance to
	// load.
	Activity() Activity
	OpenedSince(ctx context.Context, a Activity) []TabInfo
	// Dialog is the JavaScript dialog open in the tab, if any.
	Dialog() (DialogInfo, bool)
	HandleDialog(ctx context.Context, accept bool, promptText string) error
}

// The real surface has every part.
var (
	_ Marks      = (*pageSurface)(nil)
	_ Input      = (*pageSurface)(nil)
	_ Navigation = (*pageSurface)(nil)
	_ TabSet     = (*pageSurface)(nil)
	_ Picture    = (*pageSurface)(nil)
)

// use makes s the run's page, with the parts it has; the parts it lacks
// are [lacking]'s.
func (r *run) use(s Surface) {
	r.s = s
	r.marks, r.input, r.nav, r.tabs, r.pic = lacking{}, lacking{}, lacking{}, lacking{}, lacking{}
	if m, ok := s.(Marks); ok {
		r.marks = m
	}
	if in, ok := s.(Input); ok {
		r.input = in
	}
	if n, ok := s.(Navigation); ok {
		r.nav = n
	}
	if t, ok := s.(TabSet); ok {
		r.tabs = t
	}
	if p, ok := s.(Picture); ok {
		r.pic = p
	}
}

// errLacking is what a part a surface lacks answers.
var errLacking = errors.New("the page cannot do this")

// lacking stands in for the parts a surface does not have: a page that
// cannot be scanned, take input, navigate or be pictured, alone in its
// browser, with no dialog.
type lacking struct{}

func (lacking) Scan(context.Context, Frame, int) (marks.Scan, error) { return marks.Scan{}, errLacking }
func (lacking) Check(context.Context, Frame, marks.Action) (marks.Verdict, error) {
	return marks.Verdict{}, errLacking
}
func (lacking) Disarm(context.Context, Frame) (marks.Disarmed, error) {
	return marks.Disarmed{}, errLacking
}
func (lacking) Offset(context.Context, Frame) (float64, float64, error) { return 0, 0, errLacking }
func (lacking) Click(context.Context, float64, float64) error           { return errLacking }
func (lacking) Hover(context.Context, float64, float64) error           { return errLacking }
func (lacking) Wheel(context.Context, float64, float64) error           { return errLacking }
func (lacking) Focus(context.Context, Frame, int) error                 { return errLacking }
func (lacking) Press(context.Context, string) error                     { return errLacking }
func (lacking) InsertText(context.Context, string) error                { return errLacking }
func (lacking) SelectValues(context.Context, Frame, int, []string) ([]string, error) {
	return nil, errLacking
}
func (lacking) ScrollBy(context.Context, Frame, int, float64, float64) error { return errLacking }
func (lacking) Navigate(context.Context, string) error                       { return errLacking }
func (lacking) Back(context.Context) error                                   { return errLacking }
func (lacking) Forward(context.Context) error                                { return errLacking }
func (lacking) StopLoading(context.Context) error                            { return nil }
func (lacking) Settle(context.Context)                                       {}
func (lacking) Screenshot(context.Context) (browser.Screenshot, error) {
	return browser.Screenshot{}, errLacking
}
func (lacking) Tabs(context.Context) ([]TabInfo, int)            { return nil, -1 }
func (lacking) TabIndex() int                                    { return -1 }
func (lacking) SelectTab(context.Context, int) error             { return errNoTabs }
func (lacking) CloseTab(context.Context, int) error              { return errNoTabs }
func (lacking) NewTab(context.Context, string) error             { return errNoTabs }
func (lacking) Activity() Activity                               { return Activity{} }
func (lacking) OpenedSince(context.Context, Activity) []TabInfo  { return nil }
func (lacking) Dialog() (DialogInfo, bool)                       { return DialogInfo{}, false }
func (lacking) HandleDialog(context.Context, bool, string) error { return browser.ErrNoDialog }

// Activity is what a tab had seen at one moment, to tell what an action
// caused: tabs opened, downloads refused, file choosers, authentication.
type Activity struct {
	Tabs      uint64   // the browser's tab mark
	Downloads []string // the names the page suggested, in order
	// FileChoosers and AuthChallenges count what the page asked for.
	FileChoosers, AuthChallenges int
	// Chosen are the files the User chose for the document in their
	// turn: names and sizes, never bytes (files.go).
	Chosen []ChosenFile
}

// ChosenFile is a file the User chose for the page's file input.
type ChosenFile struct {
	Label string // the input's label: the page's words
	Name  string // the file's name on the User's device
	Size  int
}
