package marks

import (
	"errors"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/spec"
)

// World is the isolated world the scanner runs in, in every frame.
const World = "poppy-marks"

// Script is the scanner, to install once in every frame before any call of
// this package: b.SetScript(ctx, "marks", marks.Script()). Calls into a frame
// whose world has no scanner wait for it until ctx ends.
func Script() browser.Script { return browser.Script{World: World, Source: scannerJS} }

// ErrStale matches (with errors.Is) the error of a helper given the local id
// of an element that is gone from its document.
var ErrStale = errors.New("element is gone")

// Rect is a box in CSS pixels of the frame's viewport.
type Rect struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Mark is one mark covering what an action would touch.
type Mark struct {
	Kind    spec.MarkKind `json:"kind"`
	Marked  int           `json:"marked"`  // local id of the element bearing the mark
	Touches int           `json:"touches"` // local id of the element the action would change, activate or submit
}
