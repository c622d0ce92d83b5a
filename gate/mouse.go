package gate

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// The pointer's actions: a click, a hover and a scroll, each declared
// once (its tool, words and input, a [Decl]) beside its plan, as
// Playwright MCP's tools/backend/mouse.ts groups them.

// Click clicks the element at its visible centre, with real mouse input.
type Click struct{ Ref string }

var clickDecl = Decl[RefInput]{
	Tool:        "browser_click",
	Title:       "Click",
	Description: "Click an element (real mouse input).",
	Loop:        Loop{Name: "click", Brief: "Click an element by its ref from the current page."},
	User:        UserWords{Did: "clicked", Refused: "click"},
	Notes:       "real pointer input",
	Build:       func(in RefInput) Action { return Click{Ref: in.Ref} },
}

func (Click) Tool() string                { return spec.ToolClick }
func (a Click) withRef(ref string) Action { a.Ref = ref; return a }

func (a Click) plan() plan {
	return pointerPlan(a.Ref, "click", Input.Click, "Clicked %s.")
}

// pointerPlan is the plan of pointer input at an element's centre (a click
// or a hover), judged as a click: hover menus and tooltips act on the
// pointer too. said is the result's sentence, the ref for its %s.
func pointerPlan(ref, what string, input func(Input, context.Context, float64, float64) error, said string) plan {
	return plan{
		ref:     ref,
		touch:   &marks.Action{Kind: marks.ActionClick},
		lease:   inputLease,
		changes: true,
		dispatch: func(ctx context.Context, st *step) error {
			return atCentre(ctx, st, what, func(ctx context.Context, x, y float64) error { return input(st.r.input, ctx, x, y) })
		},
		settle: true,
		done: func(ctx context.Context, st *step) Result {
			return st.done(ctx, fmt.Sprintf(said, st.target.ref))
		},
	}
}

// atCentre sends pointer input (a click or a hover) to the centre of the
// box the check found, in top-frame coordinates.
func atCentre(ctx context.Context, st *step, what string, input func(ctx context.Context, x, y float64) error) error {
	err := pointAt(ctx, st.r.input, st.frame, st.verdict, input)
	var off frameOffsetError
	switch {
	case errors.Is(err, ErrNoPoint):
		return fail(spec.ReasonNotVisible, fmt.Sprintf("Element %s has no visible box to %s; scroll to it or take a new snapshot.", st.target.ref, what))
	case errors.As(err, &off):
		return fail(spec.ReasonPageError, "Could not locate the element's frame: "+off.err.Error())
	}
	return err
}

// Hover moves the pointer over the element's visible centre. It is gated
// like a click: hover menus and tooltips act on the pointer, so a hover
// over a step left to the User is refused.
type Hover struct{ Ref string }

var hoverDecl = Decl[RefInput]{
	Tool:        "browser_hover",
	Title:       "Hover",
	Description: "Hover over an element (menus, tooltips).",
	Loop:        Loop{Name: "hover", Brief: "Move the pointer over an element by its ref."},
	User:        UserWords{Did: "pointed at an element", Refused: "pointing"},
	Notes:       "gated like a click",
	Build:       func(in RefInput) Action { return Hover{Ref: in.Ref} },
}

func (Hover) Tool() string                { return spec.ToolHover }
func (a Hover) withRef(ref string) Action { a.Ref = ref; return a }

func (a Hover) plan() plan {
	return pointerPlan(a.Ref, "hover", Input.Hover, "The pointer is over %s; take a snapshot to see what it shows.")
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

// DefaultScroll is how far a [Scroll] with no Amount goes, in CSS pixels.
const DefaultScroll = 600

// MaxScroll bounds a [Scroll]'s Amount, in CSS pixels.
const MaxScroll = 100_000

// ScrollInput is browser_scroll's input.
type ScrollInput struct {
	Ref       string    `json:"ref,omitempty" jsonschema:"element to scroll (default: the page)"`
	Direction Direction `json:"direction"`
	Amount    float64   `json:"amount,omitempty" jsonschema:"CSS pixels; default 600"`
}

var scrollDecl = Decl[ScrollInput]{
	Tool:        "browser_scroll",
	Title:       "Scroll",
	Description: "Scroll the page or an element.",
	Loop:        Loop{Name: "scroll", Brief: "Scroll the page, or an element by ref."},
	User:        UserWords{Did: "scrolled", Refused: "scrolling"},
	Schema: func(s *jsonschema.Schema) {
		s.Properties["direction"].Enum = enum(Directions())
		s.Properties["amount"].Minimum = ptr(0.0)
	},
	Build: func(in ScrollInput) Action { return Scroll{Ref: in.Ref, Direction: in.Direction, Amount: in.Amount} },
}

func (Scroll) Tool() string                { return spec.ToolScroll }
func (a Scroll) withRef(ref string) Action { a.Ref = ref; return a }

func (a Scroll) plan() plan {
	amount := a.Amount
	if amount == 0 {
		amount = DefaultScroll
	}
	var dx, dy float64
	p := plan{ref: a.Ref, lease: inputLease}
	if !(amount > 0 && amount <= MaxScroll) { // NaN too
		p.bad = fail(spec.ReasonBadArgument, fmt.Sprintf("amount must be between 0 and %d CSS pixels.", MaxScroll))
	}
	dir := a.Direction
	if dir == "" {
		dir = Down
	}
	switch dir {
	case Down:
		dy = amount
	case Up:
		dy = -amount
	case Right:
		dx = amount
	case Left:
		dx = -amount
	default:
		p.bad = fail(spec.ReasonBadArgument, fmt.Sprintf("Direction %s is not one of up, down, left, right.", quoteArg(string(a.Direction))))
	}
	if a.Ref == "" {
		// The page scrolls under the pointer at the viewport's centre. A
		// wheel steps a focused number field under it: a covered one, in
		// any frame, refuses the wheel (a scroll with a ref sends none).
		p.focused = true
		p.touch = &marks.Action{Kind: marks.ActionWheel}
		p.dispatch = func(ctx context.Context, st *step) error { return st.r.input.Wheel(ctx, dx, dy) }
		p.done = func(ctx context.Context, st *step) Result {
			return st.done(ctx, fmt.Sprintf("Scrolled the page %s.", dir))
		}
		return p
	}
	p.touch = &marks.Action{Kind: marks.ActionScroll}
	p.dispatch = func(ctx context.Context, st *step) error {
		return st.r.input.ScrollBy(ctx, st.frame, st.target.id, dx, dy)
	}
	p.done = func(ctx context.Context, st *step) Result {
		return st.done(ctx, fmt.Sprintf("Scrolled %s %s.", st.target.ref, dir))
	}
	return p
}
