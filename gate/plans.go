package gate

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// This file holds each action's plan: what it targets and touches, how it
// dispatches, and how it reports success. The order of the steps is
// Gate.Do's alone.

func (a Click) plan() plan {
	return plan{
		ref:   a.Ref,
		touch: &marks.Action{Kind: marks.ActionClick},
		lease: inputLease,
		dispatch: func(ctx context.Context, st *step) error {
			return atCentre(ctx, st, "click", st.s.Click)
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
	err := pointAt(ctx, st.s, st.frame, st.verdict, input)
	var off frameOffsetError
	switch {
	case errors.Is(err, ErrNoPoint):
		return fail(spec.ReasonNotVisible, fmt.Sprintf("Element %s has no visible box to %s; scroll to it or take a new snapshot.", st.target.ref, what))
	case errors.As(err, &off):
		return fail(spec.ReasonPageError, "Could not locate the element's frame: "+off.err.Error())
	}
	return err
}

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
			if err := st.s.Focus(ctx, st.frame, st.target.id); err != nil {
				return err
			}
			if err := st.s.InsertText(ctx, a.Text); err != nil || !a.Submit {
				return err
			}
			return st.s.Press(ctx, "Enter")
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

func (a Select) plan() plan {
	p := plan{
		ref:   a.Ref,
		touch: &marks.Action{Kind: marks.ActionSelect},
		lease: inputLease,
		dispatch: func(ctx context.Context, st *step) error {
			var err error
			st.selected, err = st.s.SelectValues(ctx, st.frame, st.target.id, a.Values)
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
		p.dispatch = func(ctx context.Context, st *step) error { return st.s.Press(ctx, a.Key) }
		p.done = func(ctx context.Context, st *step) Result {
			return st.done(ctx, fmt.Sprintf("Pressed %s.", a.Key))
		}
		return p
	}
	p.dispatch = func(ctx context.Context, st *step) error {
		if err := st.s.Focus(ctx, st.frame, st.target.id); err != nil {
			return err
		}
		return st.s.Press(ctx, a.Key)
	}
	p.done = func(ctx context.Context, st *step) Result {
		return st.done(ctx, fmt.Sprintf("Pressed %s on %s.", a.Key, st.target.ref))
	}
	return p
}

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
		p.dispatch = func(ctx context.Context, st *step) error { return st.s.Wheel(ctx, dx, dy) }
		p.done = func(ctx context.Context, st *step) Result {
			return st.done(ctx, fmt.Sprintf("Scrolled the page %s.", dir))
		}
		return p
	}
	p.touch = &marks.Action{Kind: marks.ActionScroll}
	p.dispatch = func(ctx context.Context, st *step) error {
		return st.s.ScrollBy(ctx, st.frame, st.target.id, dx, dy)
	}
	p.done = func(ctx context.Context, st *step) Result {
		return st.done(ctx, fmt.Sprintf("Scrolled %s %s.", st.target.ref, dir))
	}
	return p
}

func (a Navigate) plan() plan {
	u, err := url.Parse(a.URL)
	p := plan{
		lease: navigationLease,
		dispatch: func(ctx context.Context, st *step) error {
			if err := st.s.Navigate(ctx, u.String()); err != nil {
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

func (Back) plan() plan { return historyPlan(-1) }

func (Forward) plan() plan { return historyPlan(1) }

// historyPlan goes back (delta -1) or forward (1) and reports the page it
// arrives at, once that has loaded.
func historyPlan(delta int) plan {
	way, move := "back", func(st *step, ctx context.Context) error { return st.s.Back(ctx) }
	if delta > 0 {
		way, move = "forward", func(st *step, ctx context.Context) error { return st.s.Forward(ctx) }
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

func (a Hover) plan() plan {
	return plan{
		ref:   a.Ref,
		touch: &marks.Action{Kind: marks.ActionHover},
		lease: inputLease,
		dispatch: func(ctx context.Context, st *step) error {
			return atCentre(ctx, st, "hover", st.s.Hover)
		},
		settle: true,
		done: func(ctx context.Context, st *step) Result {
			return st.done(ctx, fmt.Sprintf("The pointer is over %s; take a snapshot to see what it shows.", st.target.ref))
		},
	}
}

func (a Wait) plan() plan {
	var d time.Duration
	switch {
	case !(a.Seconds >= 0): // NaN too
		return plan{bad: fail(spec.ReasonBadArgument, "seconds must be 0 or more.")}
	case a.Seconds == 0 && a.Text != "":
		d = MaxWait
	case a.Seconds == 0:
		d = time.Second
	case a.Seconds >= MaxWait.Seconds():
		d = MaxWait
	default:
		d = time.Duration(a.Seconds * float64(time.Second))
	}
	return plan{
		dispatch: func(ctx context.Context, st *step) error { return st.wait(ctx, d, a.Text) },
		done:     func(ctx context.Context, st *step) Result { return st.done(ctx, st.note) },
	}
}

// wait polls the page for text until d has passed (Gate.Do stops it when
// the User takes control).
func (st *step) wait(ctx context.Context, d time.Duration, text string) error {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		if text != "" && st.r.pageHasText(wctx, text) {
			st.note = fmt.Sprintf("The text %q is on the page.", text)
			return nil
		}
		select {
		case <-wctx.Done():
			if ctx.Err() != nil {
				return fail(spec.ReasonTimeout, "The wait was cut short.")
			}
			if text != "" {
				return fail(spec.ReasonTimeout, fmt.Sprintf("The text %q did not appear within %s.", text, d))
			}
			st.note = fmt.Sprintf("Waited %s.", d)
			return nil
		case <-tick.C:
		}
	}
}

// pageHasText reports whether any frame shows text (case-insensitive). A
// wait polls across page loads, so each poll reads the frame list anew.
func (r *run) pageHasText(ctx context.Context, text string) bool {
	want := strings.ToLower(text)
	for _, f := range r.refreshFrames() {
		sc, err := r.s.Scan(ctx, f, 0)
		if err != nil {
			continue
		}
		if strings.Contains(strings.ToLower(sc.Title), want) {
			return true
		}
		for _, e := range sc.Elements {
			if e.UserField {
				continue
			}
			if strings.Contains(strings.ToLower(e.Text), want) || strings.Contains(strings.ToLower(e.Name), want) {
				return true
			}
		}
	}
	return false
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}
