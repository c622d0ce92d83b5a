package gate

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// This file holds each action's declaration for the catalogue (a [Decl]:
// the tool's name, words, input and how the input becomes the action) and
// its plan: what it targets and touches, how it dispatches, and how it
// reports success. The order of the steps is Gate.Do's alone.

// catalogue lists every action's declaration, in the order the tools are
// offered.
var catalogue = []declared{
	navigateDecl, backDecl, forwardDecl, snapshotDecl, clickDecl, hoverDecl, typeDecl,
	selectDecl, pressKeyDecl, scrollDecl, waitDecl, tabsDecl, handleDialogDecl, screenshotDecl,
	webmcpListDecl, webmcpCallDecl,
}

var clickDecl = Decl[RefInput]{
	Tool:        spec.ToolClick,
	Title:       "Click",
	Description: "Click an element (real mouse input).",
	Loop:        Loop{Name: "click", Brief: "Click an element by its ref from the current page."},
	Build:       func(in RefInput) Action { return Click{Ref: in.Ref} },
}

func (Click) Tool() string                { return spec.ToolClick }
func (a Click) withRef(ref string) Action { a.Ref = ref; return a }

func (a Click) plan() plan {
	return plan{
		ref:   a.Ref,
		touch: &marks.Action{Kind: marks.ActionClick},
		lease: inputLease,
		dispatch: func(ctx context.Context, st *step) error {
			return atCentre(ctx, st, "click", st.r.input.Click)
		},
		settle: true,
		done: func(ctx context.Context, st *step) Result {
			return st.done(ctx, fmt.Sprintf("Clicked %s.", st.target.ref))
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

// TypeInput is browser_type's input.
type TypeInput struct {
	Ref    string `json:"ref" jsonschema:"the field's ref"`
	Text   string `json:"text"`
	Submit bool   `json:"submit,omitempty" jsonschema:"press Enter after typing"`
}

var typeDecl = Decl[TypeInput]{
	Tool:        spec.ToolType,
	Title:       "Type",
	Description: "Type into a field; submit presses Enter after (gated as a submission).",
	Loop:        Loop{Name: "type", Brief: "Type text into a field by its ref; with submit, press Enter afterwards."},
	Build:       func(in TypeInput) Action { return Type{Ref: in.Ref, Text: in.Text, Submit: in.Submit} },
}

func (Type) Tool() string                { return spec.ToolType }
func (a Type) withRef(ref string) Action { a.Ref = ref; return a }

func (a Type) plan() plan {
	// One round trip covers typing and, with Submit, the Enter that may
	// submit the form: nothing is typed when either is the User's.
	touch := &marks.Action{Kind: marks.ActionType}
	if a.Submit {
		touch.Key = "Enter"
	}
	return plan{
		ref:   a.Ref,
		touch: touch,
		lease: inputLease,
		dispatch: func(ctx context.Context, st *step) error {
			if err := st.r.input.Focus(ctx, st.frame, st.target.id); err != nil {
				return err
			}
			if err := st.r.input.InsertText(ctx, a.Text); err != nil || !a.Submit {
				return err
			}
			return st.r.input.Press(ctx, "Enter")
		},
		settle: true,
		done: func(ctx context.Context, st *step) Result {
			n := len([]rune(a.Text))
			if a.Submit {
				return st.done(ctx, fmt.Sprintf("Typed %d characters into %s and pressed Enter.", n, st.target.ref))
			}
			return st.done(ctx, fmt.Sprintf("Typed %d characters into %s.", n, st.target.ref))
		},
	}
}

// SelectInput is browser_select's input.
type SelectInput struct {
	Ref    string   `json:"ref" jsonschema:"the select's ref"`
	Values []string `json:"values" jsonschema:"option values or labels"`
}

var selectDecl = Decl[SelectInput]{
	Tool:        spec.ToolSelect,
	Title:       "Select",
	Description: "Select options of a select element.",
	Loop:        Loop{Name: "select", Brief: "Select options of a native select element by its ref."},
	Schema:      func(s *jsonschema.Schema) { s.Properties["values"].MinItems = ptr(1) },
	Build:       func(in SelectInput) Action { return Select{Ref: in.Ref, Values: in.Values} },
}

func (Select) Tool() string                { return spec.ToolSelect }
func (a Select) withRef(ref string) Action { a.Ref = ref; return a }

func (a Select) plan() plan {
	p := plan{
		ref:   a.Ref,
		touch: &marks.Action{Kind: marks.ActionSelect},
		lease: inputLease,
		dispatch: func(ctx context.Context, st *step) error {
			var err error
			st.selected, err = st.r.input.SelectValues(ctx, st.frame, st.target.id, a.Values)
			return err
		},
		done: func(ctx context.Context, st *step) Result {
			res := st.done(ctx, fmt.Sprintf("Selected %s in %s.", quoteList(st.selected), st.target.ref))
			res.Selected = st.selected
			return res
		},
	}
	if len(a.Values) == 0 {
		p.bad = fail(spec.ReasonBadArgument, "Give at least one value to select.")
	}
	return p
}

// PressKeyInput is browser_press_key's input.
type PressKeyInput struct {
	Key string `json:"key" jsonschema:"key name as in Playwright"`
	Ref string `json:"ref,omitempty" jsonschema:"element to focus first"`
}

var pressKeyDecl = Decl[PressKeyInput]{
	Tool:        spec.ToolPressKey,
	Title:       "Press a key",
	Description: "Press a key (Enter, Tab, ArrowDown) on an element or on the focus.",
	Loop:        Loop{Name: "press_key", Brief: "Press a key (Enter, Tab, ArrowDown, Escape), on an element by ref or on what has focus."},
	Build:       func(in PressKeyInput) Action { return PressKey{Key: in.Key, Ref: in.Ref} },
}

func (PressKey) Tool() string                { return spec.ToolPressKey }
func (a PressKey) withRef(ref string) Action { a.Ref = ref; return a }

func (a PressKey) plan() plan {
	// The key judged is the key pressed: "\r", "Return" and "NumpadEnter"
	// are Enter to both.
	a.Key = marks.CanonicalKey(a.Key)
	p := plan{
		ref:    a.Ref,
		touch:  &marks.Action{Kind: marks.ActionKey, Key: a.Key},
		lease:  inputLease,
		settle: true,
	}
	if a.Key == "" {
		p.bad = fail(spec.ReasonBadArgument, "Give a key to press, such as Enter or Tab.")
	}
	if a.Ref == "" {
		// The key goes to whatever has focus, in whichever frame.
		p.focused = true
		p.dispatch = func(ctx context.Context, st *step) error { return st.r.input.Press(ctx, a.Key) }
		p.done = func(ctx context.Context, st *step) Result {
			return st.done(ctx, fmt.Sprintf("Pressed %s.", a.Key))
		}
		return p
	}
	p.dispatch = func(ctx context.Context, st *step) error {
		if err := st.r.input.Focus(ctx, st.frame, st.target.id); err != nil {
			return err
		}
		return st.r.input.Press(ctx, a.Key)
	}
	p.done = func(ctx context.Context, st *step) Result {
		return st.done(ctx, fmt.Sprintf("Pressed %s on %s.", a.Key, st.target.ref))
	}
	return p
}

// ScrollInput is browser_scroll's input.
type ScrollInput struct {
	Ref       string    `json:"ref,omitempty" jsonschema:"element to scroll (default: the page)"`
	Direction Direction `json:"direction"`
	Amount    float64   `json:"amount,omitempty" jsonschema:"CSS pixels; default 600"`
}

var scrollDecl = Decl[ScrollInput]{
	Tool:        spec.ToolScroll,
	Title:       "Scroll",
	Description: "Scroll the page or an element.",
	Loop:        Loop{Name: "scroll", Brief: "Scroll the page, or an element by ref."},
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

// NavigateInput is browser_navigate's input.
type NavigateInput struct {
	URL string `json:"url"`
}

var navigateDecl = Decl[NavigateInput]{
	Tool:        spec.ToolNavigate,
	Title:       "Navigate",
	Description: "Open an http(s) URL; answers with the page (new epoch).",
	Loop:        Loop{Name: "navigate", Brief: "Open an http or https URL."},
	Build:       func(in NavigateInput) Action { return Navigate{URL: in.URL} },
}

func (Navigate) Tool() string { return spec.ToolNavigate }

func (a Navigate) plan() plan {
	u, err := url.Parse(a.URL)
	p := plan{
		lease: navigationLease,
		dispatch: func(ctx context.Context, st *step) error {
			if err := st.r.nav.Navigate(ctx, u.String()); err != nil {
				if errors.Is(err, browser.ErrDialogOpen) {
					// The page loaded far enough to run a script that asks
					// something: opened, with a dialog to answer first.
					st.dialogOpened = true
					return nil
				}
				if f := browserFailure(err); f != nil {
					return f
				}
				return fail(spec.ReasonNavigation, "The page did not load: "+err.Error())
			}
			return nil
		},
		done: func(ctx context.Context, st *step) Result {
			return st.done(ctx, "Loaded the page; take a snapshot to see it.")
		},
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.bad = fail(spec.ReasonBadURL, "Only absolute http and https URLs can be opened.")
	}
	return p
}

var backDecl = Decl[NoInput]{
	Tool:        spec.ToolBack,
	Title:       "Go back",
	Description: "Go back one page; answers with it (new epoch).",
	Loop:        Loop{Name: "back", Brief: "Go back one page."},
	Build:       func(NoInput) Action { return Back{} },
}

var forwardDecl = Decl[NoInput]{
	Tool:        spec.ToolForward,
	Title:       "Go forward",
	Description: "Go forward one page; answers with it (new epoch).",
	Loop:        Loop{Name: "forward", Brief: "Go forward one page."},
	Build:       func(NoInput) Action { return Forward{} },
}

func (Back) Tool() string    { return spec.ToolBack }
func (Forward) Tool() string { return spec.ToolForward }

func (Back) plan() plan { return historyPlan(-1) }

func (Forward) plan() plan { return historyPlan(1) }

// historyPlan goes back (delta -1) or forward (1) and reports the page it
// arrives at, once that has loaded.
func historyPlan(delta int) plan {
	way, move := "back", func(st *step, ctx context.Context) error { return st.r.nav.Back(ctx) }
	if delta > 0 {
		way, move = "forward", func(st *step, ctx context.Context) error { return st.r.nav.Forward(ctx) }
	}
	return plan{
		lease: navigationLease,
		dispatch: func(ctx context.Context, st *step) error {
			if err := move(st, ctx); err != nil {
				if errors.Is(err, browser.ErrDialogOpen) {
					st.dialogOpened = true
					return nil
				}
				if f := browserFailure(err); f != nil {
					return f
				}
				if errors.Is(err, browser.ErrNoHistory) {
					return fail(spec.ReasonNoHistory, fmt.Sprintf("There is no page to go %s to.", way))
				}
				return fail(spec.ReasonNavigation, fmt.Sprintf("Could not go %s: %s", way, err))
			}
			return nil
		},
		done: func(ctx context.Context, st *step) Result {
			return st.done(ctx, fmt.Sprintf("Went %s; refs of the page before are stale: take a snapshot to see this one.", way))
		},
	}
}

var hoverDecl = Decl[RefInput]{
	Tool:        spec.ToolHover,
	Title:       "Hover",
	Description: "Hover over an element (menus, tooltips).",
	Loop:        Loop{Name: "hover", Brief: "Move the pointer over an element by its ref."},
	Build:       func(in RefInput) Action { return Hover{Ref: in.Ref} },
}

func (Hover) Tool() string                { return spec.ToolHover }
func (a Hover) withRef(ref string) Action { a.Ref = ref; return a }

func (a Hover) plan() plan {
	return plan{
		ref: a.Ref,
		// Judged as a click: hover menus and tooltips act on the pointer.
		touch: &marks.Action{Kind: marks.ActionClick},
		lease: inputLease,
		dispatch: func(ctx context.Context, st *step) error {
			return atCentre(ctx, st, "hover", st.r.input.Hover)
		},
		settle: true,
		done: func(ctx context.Context, st *step) Result {
			return st.done(ctx, fmt.Sprintf("The pointer is over %s; take a snapshot to see what it shows.", st.target.ref))
		},
	}
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}
