package gate_test

import (
	"context"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// stuckToolPage is a page whose one WebMCP tool reaches a marked step (its
// guard catches a click on the Check in button) and whose browser never
// answers the cancel of the tool's call.
type stuckToolPage struct{ readOnlyPage }

var caughtCheckIn = &marks.Caught{Event: "click", Marks: []marks.Mark{{Kind: spec.Submission, Marked: 2, Touches: 5}}}

func (stuckToolPage) Check(context.Context, gate.Frame, marks.Action) (marks.Verdict, error) {
	return marks.Verdict{}, nil
}
func (stuckToolPage) Disarm(context.Context, gate.Frame) (marks.Disarmed, error) {
	return marks.Disarmed{Caught: caughtCheckIn}, nil
}
func (stuckToolPage) WebMCPTools(context.Context) ([]browser.WebMCPTool, error) {
	return []browser.WebMCPTool{{Name: "check_in"}}, nil
}
func (stuckToolPage) ToolForms(context.Context, gate.Frame, []string) (map[string]marks.ToolForm, error) {
	return nil, nil
}
func (stuckToolPage) ToolPlan(context.Context, gate.Frame, string, map[string]any) (marks.ToolForm, bool, error) {
	return marks.ToolForm{}, false, nil
}
func (stuckToolPage) ToolFill(context.Context, gate.Frame, int, map[string]any) ([]string, error) {
	return nil, nil
}
func (stuckToolPage) InvokeTool(context.Context, string, map[string]any) (gate.ToolCall, error) {
	return stuckCall{}, nil
}
func (stuckToolPage) Peek(context.Context, gate.Frame) (*marks.Caught, error) {
	return caughtCheckIn, nil
}

// stuckCall never ends, and its Cancel waits for its ctx (a browser that
// does not answer).
type stuckCall struct{}

func (stuckCall) Done() <-chan struct{}            { return nil }
func (stuckCall) Result() browser.WebMCPResult     { return browser.WebMCPResult{} }
func (stuckCall) Cancel(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }

// TestWebMCPCallStoppedByTheGuardEndsWithoutAnAnswerToItsCancel: a page's
// tool that reached a step left to the User is refused (user_step) within
// a bound even when the browser never answers the cancel of its call: the
// agent's call does not hang.
func TestWebMCPCallStoppedByTheGuardEndsWithoutAnAnswerToItsCancel(t *testing.T) {
	g := gate.New(&gate.Options{Control: control.New(nil), Surface: func() gate.Surface { return stuckToolPage{} }})
	done := make(chan gate.Result, 1)
	go func() { done <- g.Do(context.Background(), gate.WebMCPCall{Name: "check_in"}) }()
	bound := time.NewTimer(20 * time.Second)
	defer bound.Stop()
	select {
	case r := <-done:
		if r.Outcome != spec.OutcomeDenied || r.Reason != spec.ReasonUserStep {
			t.Fatalf("got %s/%s (%s), want denied/user_step", r.Outcome, r.Reason, r.Message)
		}
	case <-bound.C:
		t.Fatal("browser_webmcp_call did not return: it waits without bound for the cancel of the page's tool call")
	}
}

// lostCatchPage is a page whose tool reaches a marked step (its guard
// reports the catch while the tool runs) but whose disarm, after the
// call was cancelled, reads nothing (the frame was busy, or replaced).
type lostCatchPage struct{ stuckToolPage }

func (lostCatchPage) Disarm(context.Context, gate.Frame) (marks.Disarmed, error) {
	return marks.Disarmed{}, nil
}
func (lostCatchPage) InvokeTool(context.Context, string, map[string]any) (gate.ToolCall, error) {
	return cancelledCall{}, nil
}

// cancelledCall never answers, and its cancel is answered at once.
type cancelledCall struct{ stuckCall }

func (cancelledCall) Cancel(context.Context) error { return nil }

// TestWebMCPCallStoppedByTheGuardIsNeverDone: a page's tool that the
// guard stopped at a step left to the User is refused (user_step, the
// mark named) even when the disarm after it reads nothing: the agent is
// never told the tool ran.
func TestWebMCPCallStoppedByTheGuardIsNeverDone(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	g := gate.New(&gate.Options{Control: control.New(nil), Surface: func() gate.Surface { return lostCatchPage{} }})
	r := g.Do(ctx, gate.WebMCPCall{Name: "check_in"})
	if r.Outcome != spec.OutcomeDenied || r.Reason != spec.ReasonUserStep || r.Mark == nil {
		t.Fatalf("got %s/%s (%s), mark %v: want denied/user_step with the mark", r.Outcome, r.Reason, r.Message, r.Mark)
	}
}
