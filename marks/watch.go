package marks

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/poppy-browser/poppy-browser/browser"
)

// watchJS is js/watch.js: it defines globalThis.poppyWatch in [World].
//
//go:embed js/watch.js
var watchJS string

// locateJS is js/locate.js: it defines globalThis.poppyLocate in [World]
// (see [Locate]); it is installed with the watcher.
//
//go:embed js/locate.js
var locateJS string

// WatchScript is the conformance watcher, for package check: install it
// after [Script] in every frame (b.SetScript(ctx, "marks-watch",
// marks.WatchScript())). From document start it records when each mark
// appeared, when each control was first shown usable, and every form's
// submit and formdata events. It also carries [Locate]'s script. The
// runtime does not install it.
func WatchScript() browser.Script {
	return browser.Script{World: World, Source: watchJS + "\n" + locateJS}
}

// Timed is an element (by local id) and a document time in milliseconds
// (performance.now() of the frame's document).
type Timed struct {
	ID int     `json:"id"`
	At float64 `json:"at"`
	// Closed: the element is in a closed shadow tree, watched only since
	// [ScanFrame] adopted it, so At is when it was first seen, not when it
	// appeared.
	Closed bool `json:"closed,omitempty"`
}

// FormEvent is a submit or formdata event of a form.
type FormEvent struct {
	Type string  `json:"type"` // "submit" or "formdata"
	Form int     `json:"form"` // local id of the form
	At   float64 `json:"at"`
}

// Watch is what the watcher saw of a frame's document so far.
type Watch struct {
	Now        float64 `json:"now"`
	LastChange float64 `json:"lastChange"` // time of the last DOM change
	// LastNetwork is when a resource of the document last finished loading
	// (0: none yet).
	LastNetwork float64 `json:"lastNetwork"`
	// Parsed is when the document was parsed (DOMContentLoaded); 0 while
	// it is being parsed.
	Parsed float64 `json:"parsed"`
	// Marked: when each element bearing a mark was first seen with it.
	Marked []Timed `json:"marked"`
	// Shown: the first animation frame at which each control was visible
	// and enabled.
	Shown  []Timed     `json:"shown"`
	Events []FormEvent `json:"events"`
}

// Owned is a control a marked element covers: for a form, one it owns
// (Outside when it is outside the form and names it with form=); for any
// other element, a control inside it (or itself).
type Owned struct {
	ID           int      `json:"id"`
	Tag          string   `json:"tag"`
	Type         string   `json:"type"`
	Name         string   `json:"name"` // the name attribute
	Outside      bool     `json:"outside"`
	FormAttr     string   `json:"formAttr,omitempty"` // the form= attribute of an Outside control
	Options      []string `json:"options,omitempty"`  // option values of a select
	Required     bool     `json:"required,omitempty"`
	Min          string   `json:"min,omitempty"`
	MaxLength    int      `json:"maxLength,omitempty"`
	Autocomplete string   `json:"autocomplete,omitempty"`
}

// Marking is one element bearing data-poppy-user-step, with its raw value.
// Its kind is spec.KindOf(Value, Form).
type Marking struct {
	ID       int     `json:"id"`
	Tag      string  `json:"tag"`
	Value    string  `json:"value"`
	Form     bool    `json:"form"`
	Controls []Owned `json:"controls"`
}

// FormInfo is a form of the document and its raw mark value (nil: none).
type FormInfo struct {
	ID    int     `json:"id"`
	Value *string `json:"value"`
}

const (
	callWatchReport    = `function() { return globalThis.poppyWatch.report(); }`
	callWatchInventory = `function() { return globalThis.poppyWatch.inventory(); }`
	callWatchForms     = `function() { return globalThis.poppyWatch.forms(); }`
)

// WatchReport reads what the watcher recorded in the frame's document.
func WatchReport(ctx context.Context, f browser.Frame) (Watch, error) {
	var w Watch
	if err := f.Call(ctx, World, callWatchReport, &w); err != nil {
		return Watch{}, fmt.Errorf("reading the watcher: %w", err)
	}
	return w, nil
}

// Inventory lists every element of the frame's document bearing a mark, in
// document order, with the controls it covers.
func Inventory(ctx context.Context, f browser.Frame) ([]Marking, error) {
	var ms []Marking
	if err := f.Call(ctx, World, callWatchInventory, &ms); err != nil {
		return nil, fmt.Errorf("listing marks: %w", err)
	}
	return ms, nil
}

// Forms lists the forms of the frame's document with their mark values.
func Forms(ctx context.Context, f browser.Frame) ([]FormInfo, error) {
	var fs []FormInfo
	if err := f.Call(ctx, World, callWatchForms, &fs); err != nil {
		return nil, fmt.Errorf("listing forms: %w", err)
	}
	return fs, nil
}
