package gate

import (
	"context"

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
	// changes: the action may change the document it acts on without
	// leaving it (a click, typing, a key, a select, a hover, a dialog
	// answered), so [Gate.DoAndSeeChanges] brings what changed.
	changes bool
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
