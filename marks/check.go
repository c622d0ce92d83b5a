package marks

import (
	"context"
	"fmt"

	"github.com/poppy-browser/poppy-browser/browser"
)

// Action is what an agent action would do, for [Check].
type Action struct {
	Kind ActionKind
	// ID is the local id of the target; 0 means none: a key press goes to
	// the focused element (document.activeElement, through open shadow roots).
	ID int
	// Key is the Playwright key name for "key" ("Enter", " ", "Tab",
	// "Shift+Tab" ...); for "type" it is "Enter" when the text is submitted.
	Key string
	// Arm arms the frame's in-page guard when the verdict allows the
	// action: until [Disarm], a click, key press, text input or submit that
	// reaches a covered element in the frame is stopped before the page
	// sees it. The gate arms it just before it dispatches agent input.
	Arm bool
	// Agent says the action is the agent's, in its turn of control epoch
	// Epoch: a guard that stood down for the User's turn of that epoch or
	// a later one ([StandDown]) arms nothing, as the check raced the take.
	Agent bool
	Epoch uint64
	// Tool, for [ActionGuard]: the action is a page's WebMCP tool, so the
	// guard stays armed as long as a tool's.
	Tool bool
}

// ActionKind is what an [Action] does to its target.
type ActionKind string

// The kinds of action the scanner judges.
const (
	// ActionClick clicks the element, or moves the pointer over it (a
	// hover is judged as a click: menus and tooltips act on the pointer).
	ActionClick  ActionKind = "click"
	ActionType   ActionKind = "type"
	ActionSelect ActionKind = "select"
	ActionKey    ActionKind = "key"
	ActionScroll ActionKind = "scroll"
	ActionFocus  ActionKind = "focus"
	// ActionWheel scrolls with the mouse wheel, without a target: judged
	// on the focused element, which a wheel changes when it is a number
	// field (Chromium steps a focused number input under the pointer).
	// Which element the pointer is over is not asked: every frame's
	// focused number field counts.
	ActionWheel ActionKind = "wheel"
)

// Verdict is what an action would touch and which marks cover it, read
// from the page at the moment of [Check].
type Verdict struct {
	Stale bool // the element is gone or replaced (not connected): stale_ref
	// Marks are every mark covering what the action would touch,
	// interaction marks first; non-empty means refuse (user_step).
	Marks []Mark
	// Obscured is set for a click when another element covers the
	// target's click point.
	Obscured bool
	// Point is the click point (X, Y; Width = Height = 0) in the frame's
	// viewport after scrolling the target into view, for clicks; nil when
	// the target shows no box in the viewport.
	Point *Rect
	// Focused says whether the target is the focused element now.
	Focused bool
}

// verdictJSON mirrors the scanner's check result.
type verdictJSON struct {
	Stale    bool   `json:"stale"`
	Marks    []Mark `json:"marks"`
	Obscured bool   `json:"obscured"`
	Point    *Rect  `json:"point"`
	Focused  bool   `json:"focused"`
	// Unseen: the focus is inside a shadow root the scanner has not
	// adopted (a closed root attached since the last scan).
	Unseen bool `json:"unseen"`
}

func (v verdictJSON) verdict() Verdict {
	return Verdict{Stale: v.Stale, Marks: v.Marks, Obscured: v.Obscured, Point: v.Point, Focused: v.Focused}
}

// actionJSON is the argument of the scanner's check.
type actionJSON struct {
	Kind  ActionKind `json:"kind"`
	ID    int        `json:"id"`
	Key   string     `json:"key"`
	Arm   bool       `json:"arm"`
	Agent bool       `json:"agent"`
	Epoch uint64     `json:"epoch"`
	Tool  bool       `json:"tool"`
}

// Check reads, in one round trip, what action a would touch in the frame and
// which marks cover it now. For a click it also scrolls the target into view
// and hit-tests its click point. Every element a returned Mark names has a
// local id. A gone target is a Verdict with Stale set, not an error.
func Check(ctx context.Context, f browser.Frame, a Action) (Verdict, error) {
	switch a.Kind {
	case ActionClick, ActionType, ActionSelect, ActionKey, ActionScroll, ActionFocus, ActionWheel, ActionTool, ActionGuard:
	default:
		return Verdict{}, fmt.Errorf("checking action: unknown kind %q", a.Kind)
	}
	var v verdictJSON
	if err := callScanner(ctx, f, jsCheck, &v, actionJSON(a)); err != nil {
		return Verdict{}, fmt.Errorf("checking action: %w", err)
	}
	if v.Unseen {
		// The focus is in a closed root attached since the last scan.
		if _, err := adoptClosedRoots(ctx, f); err != nil {
			return Verdict{}, fmt.Errorf("checking action: %w", err)
		}
		v = verdictJSON{}
		if err := callScanner(ctx, f, jsCheck, &v, actionJSON(a)); err != nil {
			return Verdict{}, fmt.Errorf("checking action: %w", err)
		}
	}
	return v.verdict(), nil
}

// Caught is what the in-page guard stopped: an event of an agent action
// that reached an element a mark covers.
type Caught struct {
	Event string `json:"event"` // "click", "keydown", "beforeinput", "submit", "value change" (a tool's script set a covered control with no event) ...
	// Marks cover what the event would have changed, activated or
	// submitted, interaction marks first.
	Marks []Mark `json:"marks"`
}

// Disarmed is what [Disarm] found.
type Disarmed struct {
	Caught *Caught `json:"caught"` // what the guard stopped, or nil
	Title  string  `json:"title"`  // the frame's document title, read in the same call
}

// Disarm disarms the frame's guard (see [Action.Arm]) and returns what it
// stopped while armed, with the document's title. The guard stays armed
// two seconds more for what the action's scripts do after it (see [Late]).
func Disarm(ctx context.Context, f browser.Frame) (Disarmed, error) {
	var d Disarmed
	if err := callScanner(ctx, f, jsDisarm, &d); err != nil {
		return Disarmed{}, fmt.Errorf("disarming the guard: %w", err)
	}
	return d, nil
}

// Late returns, once, what the frame's guard stopped after the action it
// was armed for returned: [Disarm] leaves it armed two seconds more
// (judging by the same marks) for the scripts that action started (a
// timer, a promise), and the gate reads this at its next action. Nil when
// it stopped nothing. undisarmed says the last action did not disarm f
// (its arming timed out in a busy tab, or its disarm failed): a guard the
// action armed there late, and what it stopped, are read too.
func Late(ctx context.Context, f browser.Frame, undisarmed bool) (*Caught, error) {
	var c *Caught
	if err := callScanner(ctx, f, jsTakeLate, &c, undisarmed); err != nil {
		return nil, fmt.Errorf("reading the guard: %w", err)
	}
	return c, nil
}

// StandDown tells the frame's guard that the User took control in control
// epoch epoch: it stops nothing and puts nothing back until an agent's
// next [Check] arms it, so the User's input reaches the page untouched,
// however long the agent's run takes to disarm it. What it caught of the run's input before (a tool's
// changes up to now, put back first) waits for that [Disarm]. An agent's
// [Check] of epoch or an older one arms nothing in the frame.
func StandDown(ctx context.Context, f browser.Frame, epoch uint64) error {
	// At once, not awaited: the take may hold a busy renderer for it.
	if err := f.CallNow(ctx, World, jsStandDown.call(), nil, epoch); err != nil {
		return fmt.Errorf("standing the guard down: %w", err)
	}
	return nil
}
