package marks

import (
	"context"
	"errors"
	"fmt"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/spec"
)

// Calls into the scanner's helpers; every value is an argument, never
// source text.
const (
	callFocus    = `function(id) { try { return {focused: globalThis.poppyMarks.focus(id)}; } catch (e) { return {error: String(e.message)}; } }`
	callSelect   = `function(id, values) { try { return globalThis.poppyMarks.selectKeys(id, values) || {}; } catch (e) { return {error: String(e.message)}; } }`
	callSelected = `function(id) { try { return {values: globalThis.poppyMarks.selectedValues(id)}; } catch (e) { return {error: String(e.message)}; } }`
	callScroll   = `function(id, dx, dy) { try { globalThis.poppyMarks.scrollBy(id, dx, dy); return {}; } catch (e) { return {error: String(e.message)}; } }`
	callRef      = `function(sel) { return globalThis.poppyMarks.ref(sel); }`
	callMarks    = `function() { return globalThis.poppyMarks.marks(); }`
)

// helperResult is what the helpers return: an error message from the page
// ("stale element" for a gone element) or their value.
type helperResult struct {
	Error   string   `json:"error"`
	Focused bool     `json:"focused"`
	Values  []string `json:"values"`
	Keys    []string `json:"keys"`
}

func (r helperResult) err(op string) error {
	switch r.Error {
	case "":
		return nil
	case "stale element":
		return fmt.Errorf("%s: %w", op, ErrStale)
	default:
		return fmt.Errorf("%s: %s", op, r.Error)
	}
}

// Focus focuses the element; it fails with [ErrStale] for a gone element and
// when the element does not take focus.
func Focus(ctx context.Context, f browser.Frame, id int) error {
	var r helperResult
	if err := f.Call(ctx, World, callFocus, &r, id); err != nil {
		return fmt.Errorf("focusing element: %w", err)
	}
	if err := r.err("focusing element"); err != nil {
		return err
	}
	if !r.Focused {
		return errors.New("focusing element: it did not take focus")
	}
	return nil
}

// Selection is how to select options of a native <select> as a person at
// the keyboard does: with the select focused, press Keys in order (names
// as the browser's Press takes them); Values are the option values
// selected afterwards.
type Selection struct {
	Keys   []string
	Values []string
}

// SelectKeys works out, changing nothing, the key presses that select the
// options of a native <select> whose value or visible label is one of
// values (the first match unless it is multiple): arrows, Home and End,
// and in a multiple select Control with an arrow and Control+Space. The
// caller focuses the select ([Focus]) and presses them, so the page sees
// the events a person's select fires. It fails when no option matches or
// every match is disabled; Keys is empty when they are selected already.
func SelectKeys(ctx context.Context, f browser.Frame, id int, values []string) (Selection, error) {
	var r helperResult
	if values == nil {
		values = []string{}
	}
	if err := f.Call(ctx, World, callSelect, &r, id, values); err != nil {
		return Selection{}, fmt.Errorf("selecting options: %w", err)
	}
	if err := r.err("selecting options"); err != nil {
		return Selection{}, err
	}
	if len(r.Values) == 0 {
		return Selection{}, errors.New("selecting options: no option matches")
	}
	return Selection{Keys: r.Keys, Values: r.Values}, nil
}

// SelectedValues reads the values of the selected options of a native
// <select>.
func SelectedValues(ctx context.Context, f browser.Frame, id int) ([]string, error) {
	var r helperResult
	if err := f.Call(ctx, World, callSelected, &r, id); err != nil {
		return nil, fmt.Errorf("reading the selection: %w", err)
	}
	if err := r.err("reading the selection"); err != nil {
		return nil, err
	}
	return r.Values, nil
}

// ScrollBy scrolls the element's nearest scrollable container (the window
// when there is none, or when id is 0) by dx, dy CSS pixels.
func ScrollBy(ctx context.Context, f browser.Frame, id int, dx, dy float64) error {
	var r helperResult
	if err := f.Call(ctx, World, callScroll, &r, id, dx, dy); err != nil {
		return fmt.Errorf("scrolling: %w", err)
	}
	return r.err("scrolling")
}

// IDOf assigns a local id to the first element of the frame's document
// matching the CSS selector (open shadow trees are not searched), or returns
// 0 when none matches. It is for tests and fixtures; agents use scanned ids.
func IDOf(ctx context.Context, f browser.Frame, selector string) (int, error) {
	var id int
	if err := f.Call(ctx, World, callRef, &id, selector); err != nil {
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
	if err := f.Call(ctx, World, callMarks, &m); err != nil {
		return nil, fmt.Errorf("reading marks: %w", err)
	}
	return m, nil
}
