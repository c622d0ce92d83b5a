package marks

import (
	"context"
	"fmt"
	"strconv"

	"github.com/poppy-browser/poppy-browser/browser"
)

// Location says where an element is, for a report a person reads: CSS
// selectors that find it again in the browser's developer tools.
type Location struct {
	// Selector matches exactly the element, and nothing else, in its tree:
	// its document, or the shadow root it is in (query the root with it).
	// It is a chain of child steps (tag, with :nth-of-type(k) when siblings
	// share the tag) from the nearest inclusive ancestor whose id is unique
	// in the tree (#id), or else from the tree's top: "html" in a document,
	// ":host" in a shadow root. Empty when no such selector was found.
	Selector string `json:"selector"`
	// Hosts are the selectors of the shadow hosts the element is under,
	// from the document down, each in its own tree; empty outside shadow
	// trees.
	Hosts []string `json:"hosts"`
	// HTML is the element's start tag, at most 200 characters (longer ones
	// end with "…"); a non-empty value attribute of an input or textarea
	// shows as "…" (it may hold what a server filled in for the User).
	HTML string `json:"html"`
}

const (
	callLocate     = `function(ids) { return globalThis.poppyLocate.locate(ids); }`
	callFrameSelf  = `function() { return globalThis.poppyLocate.frameSelf(); }`
	callFrameOwner = `function(i) { return globalThis.poppyLocate.frameOwner(i); }`
)

// Locate returns the location of each element of the frame's document
// given by local id; elements that are gone are left out. It needs
// [WatchScript] installed in the frame, and changes nothing.
func Locate(ctx context.Context, f browser.Frame, ids []int) (map[int]Location, error) {
	if len(ids) == 0 {
		// Frame.Call would send no argument for an empty array.
		return map[int]Location{}, nil
	}
	var raw map[string]Location
	if err := f.Call(ctx, World, callLocate, &raw, ids); err != nil {
		return nil, fmt.Errorf("locating elements: %w", err)
	}
	out := make(map[int]Location, len(raw))
	for k, loc := range raw {
		id, err := strconv.Atoi(k)
		if err != nil {
			return nil, fmt.Errorf("locating elements: bad id %q", k)
		}
		out[id] = loc
	}
	return out, nil
}

// LocateFrame returns the location, in parent's document, of the element
// (iframe, frame or object) that holds child. A same-origin child reads it
// from its frameElement; a cross-origin one tells its index among its
// parent's frames (window.frames) and the parent finds the element whose
// content window is that one, so a cross-origin frame inside a shadow tree
// (not in window.frames) is not found. ok is false when child is a top
// frame or its element was not found.
func LocateFrame(ctx context.Context, parent, child browser.Frame) (loc Location, ok bool, err error) {
	var self struct {
		Index int       `json:"index"`
		Owner *Location `json:"owner"`
	}
	if err := child.Call(ctx, World, callFrameSelf, &self); err != nil {
		return Location{}, false, fmt.Errorf("locating a frame: %w", err)
	}
	if self.Owner != nil {
		return *self.Owner, true, nil
	}
	if self.Index < 0 {
		return Location{}, false, nil
	}
	var owner *Location
	if err := parent.Call(ctx, World, callFrameOwner, &owner, self.Index); err != nil {
		return Location{}, false, fmt.Errorf("locating a frame: %w", err)
	}
	if owner == nil {
		return Location{}, false, nil
	}
	return *owner, true, nil
}
