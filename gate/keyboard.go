package gate

import (
	"context"
	"fmt"

	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// The keyboard's actions: typing into a field and pressing a key, each
// declared once (a [Decl]) beside its plan.

// Type focuses a field and inserts Text as one input. With Submit, Enter is
// pressed afterwards; that is gated as a submission before anything is
// typed.
type Type struct {
	Ref    string
	Text   string
	Submit bool
}

// TypeInput is browser_type's input.
type TypeInput struct {
	Ref    string `json:"ref" jsonschema:"the field's ref"`
	Text   string `json:"text"`
	Submit bool   `json:"submit,omitempty" jsonschema:"press Enter after typing"`
}

var typeDecl = Decl[TypeInput]{
	Tool:        "browser_type",
	Title:       "Type",
	Description: "Type into a field; submit presses Enter after (gated as a submission).",
	Loop:        Loop{Name: "type", Brief: "Type text into a field by its ref; with submit, press Enter afterwards."},
	User:        UserWords{Did: "typed into a field", Refused: "typing"},
	Notes:       "`submit` presses Enter after typing, gated as a submission",
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
		ref:     a.Ref,
		touch:   touch,
		lease:   inputLease,
		changes: true,
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

// PressKey presses Key (Playwright names: "Enter", "Tab", "ArrowDown", " ")
// on the element Ref, or on whatever has focus when Ref is empty.
type PressKey struct {
	Key string
	Ref string
}

// PressKeyInput is browser_press_key's input.
type PressKeyInput struct {
	Key string `json:"key" jsonschema:"key name as in Playwright"`
	Ref string `json:"ref,omitempty" jsonschema:"element to focus first"`
}

var pressKeyDecl = Decl[PressKeyInput]{
	Tool:        "browser_press_key",
	Title:       "Press a key",
	Description: "Press a key (Enter, Tab, ArrowDown) on an element or on the focus.",
	Loop:        Loop{Name: "press_key", Brief: "Press a key (Enter, Tab, ArrowDown, Escape), on an element by ref or on what has focus."},
	User:        UserWords{Did: "pressed a key", Refused: "key press"},
	Notes:       "keys as in Playwright (`Enter`, `Tab`, `ArrowDown`, ` `)",
	Build:       func(in PressKeyInput) Action { return PressKey{Key: in.Key, Ref: in.Ref} },
}

func (PressKey) Tool() string                { return spec.ToolPressKey }
func (a PressKey) withRef(ref string) Action { a.Ref = ref; return a }

func (a PressKey) plan() plan {
	// The key judged is the key pressed: "\r", "Return" and "NumpadEnter"
	// are Enter to both.
	a.Key = marks.CanonicalKey(a.Key)
	p := plan{
		ref:     a.Ref,
		touch:   &marks.Action{Kind: marks.ActionKey, Key: a.Key},
		lease:   inputLease,
		changes: true,
		settle:  true,
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
