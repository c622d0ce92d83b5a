package marks

import (
	"context"
	"fmt"

	"github.com/poppy-browser/poppy-browser/browser"
)

// Escape is a form no submission mark is on, one of whose submitters (or
// of the controls in it with a button's role, such as a div role=button)
// an interaction mark covers, and the other ways an agent may submit it
// that no mark covers, as the gate's own rules judge them.
type Escape struct {
	Form   int     `json:"form"`   // local id of the form
	Name   string  `json:"name"`   // the form's name, as a scan gives it
	Marked []int   `json:"marked"` // local ids of its submitters (and buttons) a mark covers
	Routes []Route `json:"routes"` // empty when the model finds none
	// Scripted are the form's buttons (owned by it or inside it) with no
	// default action, and the links of its document or shadow root that go
	// nowhere by themselves ("#", "javascript:"), shown and enabled, that
	// no mark covers: a script could submit the form from them, which only
	// a probe can tell.
	Scripted []int `json:"scripted"`
}

// Route is one way out of an [Escape]: a click on a submitter, or Enter in
// a text field (HTML implicit submission).
type Route struct {
	ID    int  `json:"id"`    // local id of the submitter or the field
	Enter bool `json:"enter"` // Enter in the field ID, not a click on it
	// Via is the submitter Enter activates (the form's default button); 0
	// for a click, or when Enter submits the form with no button.
	Via       int  `json:"via"`
	IsDefault bool `json:"isDefault"` // the submitter is the form's default button
	Outside   bool `json:"outside"`   // the control is outside the form, owned with form=
	// SameTarget: the submitter belongs to another form and sends it where
	// a marked submitter sends this one (formaction, formmethod).
	SameTarget bool `json:"sameTarget,omitempty"`
}

// Escapes reads, changing nothing, every [Escape] of the frame's
// document, in tree order of the forms. Every id it returns is a local id.
func Escapes(ctx context.Context, f browser.Frame) ([]Escape, error) {
	var out []Escape
	if err := callScanner(ctx, f, jsEscapes, &out); err != nil {
		return nil, fmt.Errorf("reading escape routes: %w", err)
	}
	return out, nil
}

// Labelled returns the local id of the control that the element id, which
// covers none, names: the control of the label it is or is in, or a
// control whose aria-labelledby lists its id; 0 when there is none.
func Labelled(ctx context.Context, f browser.Frame, id int) (int, error) {
	var out int
	if err := callScanner(ctx, f, jsLabelled, &out, id); err != nil {
		return 0, fmt.Errorf("reading the labelled control: %w", err)
	}
	return out, nil
}

// Shared is a field an interaction mark covers, in a form, and the other
// fields of that form with the same name that no mark covers and an agent
// can reach: the form's data carries both values under Name. Radios of
// one group are not listed (the gate judges a click on one by every radio
// it unchecks).
type Shared struct {
	Field    int    `json:"field"`    // local id of the marked field
	Form     int    `json:"form"`     // local id of its form owner
	FormName string `json:"formName"` // the form's name, as a scan gives it
	Name     string `json:"name"`     // the name the fields share
	Others   []int  `json:"others"`   // local ids of the unmarked fields
}

// SameName reads, changing nothing, every [Shared] of the frame's
// document, in tree order of the forms and fields.
func SameName(ctx context.Context, f browser.Frame) ([]Shared, error) {
	var out []Shared
	if err := callScanner(ctx, f, jsSameName, &out); err != nil {
		return nil, fmt.Errorf("reading fields that share a name: %w", err)
	}
	return out, nil
}
