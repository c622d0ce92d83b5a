package gate

import (
	"context"
	"time"

	"github.com/poppy-browser/poppy-browser/marks"
)

// Action is one thing the agent's model asks of the browser. The set is
// closed: only the values of this package implement it, and only
// [Gate.Do] runs them. An action does not run any step itself: it returns
// a plan, and Gate.Do runs the same sequence for every plan.
type Action interface {
	// Tool is the MCP tool the action answers to (spec.Tool*), as the
	// audit log names it.
	Tool() string
	// plan says what the action targets, what it would touch, how to
	// dispatch it, whether to settle and how to describe success.
	plan() plan
}

// onElement is an action on one element, named by its ref. A probe
// ([Prober.Do]) names its element by frame and local id and gives the
// action the ref it assigns; each such action says how, beside its plan.
type onElement interface {
	Action
	withRef(ref string) Action
}

// plan is what an action asks of the gate. Gate.Do reads it in order:
// ref, touch (marks), lease, dispatch, settle, done.
type plan struct {
	// bad is set when the action's own arguments are wrong: nothing runs.
	bad *failure
	// ref is the element the action names; "" for none.
	ref string
	// touch is asked of the page's marks, in one round trip, before
	// anything runs (its ID is the ref's element). Nil: the action touches
	// no element and nothing is checked.
	touch *marks.Action
	// focused sends touch to whatever has focus, in whichever frame: every
	// frame is asked, and a page not observed since control came back
	// refuses a key (stale_ref).
	focused bool
	// lease is how the action holds the input lease while it dispatches.
	lease lease
	// dispatch does the action (input, a navigation, a read). It returns a
	// *failure for a result of its own, errUserHasControl, or an error
	// the gate turns into stale_ref or page_error.
	dispatch func(ctx context.Context, st *step) error
	// settle waits, briefly, for a navigation the input may have started.
	settle bool
	// done describes success.
	done func(ctx context.Context, st *step) Result
	// dialogOK lets the action run while a dialog holds the tab (it
	// answers the dialog or works on tabs); every other action is refused
	// with dialog_open then.
	dialogOK bool
}

// lease is how an action holds control's input lease while it dispatches.
type lease int

const (
	// noLease: the action only reads the page (snapshot, screenshot,
	// wait, the tab list); Gate.Do checks the User's turn around it.
	noLease lease = iota
	// inputLease: real input; a take by the User waits the milliseconds
	// it takes.
	inputLease
	// navigationLease: a page load; a take by the User stops it.
	navigationLease
)

// Click clicks the element at its visible centre, with real mouse input.
type Click struct{ Ref string }

// Type focuses a field and inserts Text as one input. With Submit, Enter is
// pressed afterwards; that is gated as a submission before anything is
// typed.
type Type struct {
	Ref    string
	Text   string
	Submit bool
}

// Select selects Values (option values or labels) of a native <select>.
type Select struct {
	Ref    string
	Values []string
}

// PressKey presses Key (Playwright names: "Enter", "Tab", "ArrowDown", " ")
// on the element Ref, or on whatever has focus when Ref is empty.
type PressKey struct {
	Key string
	Ref string
}

// Scroll scrolls the element Ref, or the page when Ref is empty, by Amount
// CSS pixels (0 means [DefaultScroll], at most [MaxScroll]) in Direction
// ("" means [Down]).
type Scroll struct {
	Ref       string
	Direction Direction
	Amount    float64
}

// Direction is where a [Scroll] goes, as browser_scroll spells it.
type Direction string

// Scroll directions.
const (
	Up    Direction = "up"
	Down  Direction = "down"
	Left  Direction = "left"
	Right Direction = "right"
)

// Directions lists every [Direction], in the order the tool names them.
func Directions() []Direction { return []Direction{Up, Down, Left, Right} }

// Navigate loads an http or https URL in the top frame.
type Navigate struct{ URL string }

// Back goes one step back in the page's history.
type Back struct{}

// Forward goes one step forward in the page's history.
type Forward struct{}

// Snapshot reads the page: every frame's elements, with refs of the current
// epoch; with Ref, only that element's subtree (a form, a list, a dialog).
type Snapshot struct {
	Ref string
	// From is the first line to show of a snapshot longer than
	// MaxSnapshotText (1, or 0, for the start).
	From int
	// Since is an epoch the model has read the page in: when it is the
	// page's epoch, the snapshot shows only what changed since the
	// model's last look (each changed block where it is, and a line
	// counting the rest), else the whole page. SinceLast asks the same of
	// whatever epoch the model last read. With neither, or with Ref or a
	// From past the first line, the snapshot is the whole page.
	Since     uint64
	SinceLast bool
}

// Hover moves the pointer over the element's visible centre. It is gated
// like a click: hover menus and tooltips act on the pointer, so a hover
// over a step left to the User is refused.
type Hover struct{ Ref string }

// Screenshot takes a picture of the tab (the viewport), the whole page
// (FullPage) or one element (Ref). Values in the User's fields are masked;
// OutlineMarks outlines the elements that bear marks.
type Screenshot struct {
	Ref          string
	FullPage     bool
	OutlineMarks bool
}

// Wait waits for Seconds (at most [MaxWait]; 0 means 1 s, or [MaxWait] when
// Text is set), or until Text appears on the page.
type Wait struct {
	Seconds float64
	Text    string
}

// DefaultScroll is how far a [Scroll] with no Amount goes, in CSS pixels.
const DefaultScroll = 600

// MaxScroll bounds a [Scroll]'s Amount, in CSS pixels.
const MaxScroll = 100_000

// MaxWait bounds a [Wait].
const MaxWait = 30 * time.Second
