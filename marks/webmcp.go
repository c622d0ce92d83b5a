package marks

import (
	"context"
	"fmt"

	"github.com/poppy-browser/poppy-browser/browser"
)

// ActionTool is a page's WebMCP tool run by the agent: it touches nothing
// named, and the check arms the frame's guard for the tool's whole run
// (until [Disarm]). A script of the tool that clicks, submits, or sets a
// covered control's value and fires its input or change event is stopped
// there, and the value put back.
const ActionTool ActionKind = "tool"

// ActionGuard arms the frame's guard for an action that runs elsewhere
// (another frame or tab of the Session) and may run a script that reaches
// this frame (through opener, a named window, a parent): it touches
// nothing here, and the guard judges by the marks as they are now, at its
// arming, until [Disarm] (at most as long as an action's guard, or a
// tool's when Tool is set).
const ActionGuard ActionKind = "guard"

// ToolForm is the form of a declarative WebMCP tool (<form toolname>) in
// the frame's document.
type ToolForm struct {
	ID int `json:"id"` // the form's local id
	// Marks cover the form's submission (its own mark, interaction marks
	// on it or around it).
	Marks []Mark `json:"marks"`
	// Refused, from [ToolPlan] only: the interaction marks covering the
	// fields a call's arguments would set.
	Refused []Mark `json:"refused"`
}

// Peek returns what the frame's armed guard has stopped so far, or nil,
// leaving it armed.
func Peek(ctx context.Context, f browser.Frame) (*Caught, error) {
	var c *Caught
	if err := callScanner(ctx, f, jsPeek, &c); err != nil {
		return nil, fmt.Errorf("reading the guard: %w", err)
	}
	return c, nil
}

// ToolForms finds the forms of the declarative tools names in the frame's
// document, by their toolname, with the marks covering each one's
// submission. A name without a form is left out.
func ToolForms(ctx context.Context, f browser.Frame, names []string) (map[string]ToolForm, error) {
	out := map[string]ToolForm{}
	if len(names) == 0 {
		return out, nil
	}
	if err := callScanner(ctx, f, jsToolForms, &out, names); err != nil {
		return nil, fmt.Errorf("reading the tools' forms: %w", err)
	}
	return out, nil
}

// ToolPlan reads what a call of the declarative tool name with args would
// do to its form: the marks covering its submission and those covering the
// fields args set. ok is false when the document has no such form.
func ToolPlan(ctx context.Context, f browser.Frame, name string, args map[string]any) (ToolForm, bool, error) {
	var out *ToolForm
	if args == nil {
		args = map[string]any{}
	}
	if err := callScanner(ctx, f, jsToolPlan, &out, name, args); err != nil {
		return ToolForm{}, false, fmt.Errorf("reading the tool's form: %w", err)
	}
	if out == nil {
		return ToolForm{}, false, nil
	}
	return *out, true, nil
}

// ToolFill sets the fields of form id from args, as the browser's
// declarative tool would, firing input and change, and never submits. It
// returns the argument names it set, in the form's tree order.
func ToolFill(ctx context.Context, f browser.Frame, id int, args map[string]any) ([]string, error) {
	if args == nil {
		args = map[string]any{}
	}
	return callGuarded[[]string](ctx, f, jsToolFill, "filling the tool's form", id, args)
}
