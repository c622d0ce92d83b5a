package marks

import (
	"context"
	"errors"
	"fmt"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/spec"
)

// Focus focuses the element; it fails with [ErrStale] for a gone element and
// when the element does not take focus.
func Focus(ctx context.Context, f browser.Frame, id int) error {
	focused, err := callGuarded[bool](ctx, f, jsFocus, "focusing element", id)
	if err != nil {
		return err
	}
	if !focused {
		return errors.New("focusing element: it did not take focus")
	}
	return nil
}

// Selection is how to select options of a native <select> as a person at
// the keyboard does: with the select focused, press Keys in order (names
// as the browser's Press takes them); Values are the option values
// selected afterwards.
type Selection struct {
	Keys   []string `json:"keys"`
	Values []string `json:"values"`
}

// SelectKeys works out, changing nothing, the key presses that select the
// options of a native <select> whose value or visible label is one of
// values (the first match unless it is multiple): arrows, Home and End,
// and in a multiple select Control with an arrow and Control+Space. The
// caller focuses the select ([Focus]) and presses them, so the page sees
// the events a person's select fires. It fails when no option matches or
// every match is disabled; Keys is empty when they are selected already.
func SelectKeys(ctx context.Context, f browser.Frame, id int, values []string) (Selection, error) {
	if values == nil {
		values = []string{}
	}
	sel, err := callGuarded[Selection](ctx, f, jsSelectKeys, "selecting options", id, values)
	if err != nil {
		return Selection{}, err
	}
	if len(sel.Values) == 0 {
		return Selection{}, errors.New("selecting options: no option matches")
	}
	return sel, nil
}

// SelectedValues reads the values of the selected options of a native
// <select>.
func SelectedValues(ctx context.Context, f browser.Frame, id int) ([]string, error) {
	return callGuarded[[]string](ctx, f, jsSelectedValues, "reading the selection", id)
}

// ScrollBy scrolls the element's nearest scrollable container (the window
// when there is none, or when id is 0) by dx, dy CSS pixels.
func ScrollBy(ctx context.Context, f browser.Frame, id int, dx, dy float64) error {
	_, err := callGuarded[any](ctx, f, jsScrollBy, "scrolling", id, dx, dy)
	return err
}

// IDOf assigns a local id to the first element of the frame's document
// matching the CSS selector (open shadow trees are not searched), or returns
// 0 when none matches. It is for tests and fixtures; agents use scanned ids.
func IDOf(ctx context.Context, f browser.Frame, selector string) (int, error) {
	var id int
	if err := callScanner(ctx, f, jsRef, &id, selector); err != nil {
		return 0, fmt.Errorf("finding element: %w", err)
	}
	return id, nil
}

// Marked is one element bearing a mark, as [Read] lists it.
type Marked struct {
	// Path locates the element: CSS child steps from the root, with " >>> "
	// entering an open shadow root.
	Path  string        `json:"path"`
	Value string        `json:"value"` // the attribute's value as written
	Kind  spec.MarkKind `json:"kind"`  // what the value counts as on this element
}

// Read lists every element of the frame's document that bears a mark, in
// document order, open shadow trees included. It changes nothing.
func Read(ctx context.Context, f browser.Frame) ([]Marked, error) {
	var m []Marked
	if err := callScanner(ctx, f, jsMarks, &m); err != nil {
		return nil, fmt.Errorf("reading marks: %w", err)
	}
	return m, nil
}
