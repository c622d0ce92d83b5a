package agent

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate/gatetest"
	"github.com/poppy-browser/poppy-browser/internal/golden"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/marks/markstest"
	"github.com/poppy-browser/poppy-browser/spec"
)

// boardingPassScan is the page the airline shows after the check-in.
func boardingPassScan() marks.Scan {
	return marks.Scan{URL: "https://airline.test/boarding-pass", Title: "Boarding pass", Elements: []marks.Element{
		{Role: "h1", Text: "Boarding pass"},
		{Role: "text", Text: "Your boarding pass is ready"},
		{Role: "term", Text: "Seat"},
		{Role: "definition", Text: "aisle"},
	}}
}

// events collects a loop's events.
type events struct {
	mu sync.Mutex
	ev []Event
}

func (e *events) add(ev Event) { e.mu.Lock(); defer e.mu.Unlock(); e.ev = append(e.ev, ev) }
func (e *events) kinds() []EventKind {
	e.mu.Lock()
	defer e.mu.Unlock()
	var k []EventKind
	for _, ev := range e.ev {
		k = append(k, ev.Kind)
	}
	return k
}

func replies(args ...string) (Model, *[]*ModelRequest) {
	var mu sync.Mutex
	var seen []*ModelRequest
	i := 0
	return ModelFunc(func(ctx context.Context, req *ModelRequest) (*ModelReply, error) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, req)
		a := args[min(i, len(args)-1)]
		i++
		return &ModelReply{ToolCalls: []ToolCall{{Name: ToolName, Arguments: a}}}, nil
	}), &seen
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestLoopHandsOverAndReadsAgain is the demo's story on a fake page: the
// scripted model presses Check in, the gate refuses it as user_step, the
// loop offers control to the User, waits while the User holds the browser,
// reads the page again after the hand back, and reports the boarding pass.
func TestLoopHandsOverAndReadsAgain(t *testing.T) {
	ctx := testCtx(t)
	f := gatetest.New()
	sc := markstest.CheckInScan()
	sc.Elements[2].Value = "aisle"
	f.Page.SetScan("main", sc, "")
	var ev events
	loop := NewLoop(&LoopOptions{Gate: f.Gate, Model: NewScripted(checkInScript(demoTaskText)), Observer: ev.add})

	// The User: takes control once offered, checks in on the page, hands back.
	changes, stop := f.Control.Subscribe()
	defer stop()
	userDone := make(chan error, 1)
	go func() {
		userDone <- func() error {
			for {
				var e control.Event
				select {
				case e = <-changes:
				case <-ctx.Done():
					return errors.New("no offer of control came")
				}
				if e.Kind != control.Offered {
					continue
				}
				if e.Offer.Step == nil || e.Offer.Step.Ref != "e4" {
					return errors.New("the offer names no step e4")
				}
				if err := f.Control.User().Take(ctx); err != nil {
					return err
				}
				inputs := len(f.Page.Inputs())
				f.Page.SetScan("main", boardingPassScan(), "boarding-pass")
				// The loop waits for the hand back; nothing of the agent's
				// reaches the page while the User holds it.
				for !slices.Contains(ev.kinds(), EventWaiting) {
					select {
					case <-ctx.Done():
						return errors.New("the loop never waited for the hand back")
					case <-time.After(5 * time.Millisecond):
					}
				}
				if n := len(f.Page.Inputs()); n != inputs {
					return errors.New("the agent sent input while the User held control")
				}
				return f.Control.User().HandBack(ctx)
			}
		}()
	}()

	rep, err := loop.Run(ctx, demoTaskText)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-userDone; err != nil {
		t.Fatal(err)
	}
	if !rep.Success || rep.Reason != EndDone || !strings.Contains(rep.Text, "seat aisle") {
		t.Fatalf("report = %+v", rep)
	}
	first := rep.History[0]
	if first.Action != ActClick || first.Result.Reason != spec.ReasonUserStep || first.Result.Offer == nil {
		t.Errorf("step 1 = %+v, want the refused click with an offer", first)
	}
	if slices.ContainsFunc(f.Page.Inputs(), func(s string) bool { return strings.HasPrefix(s, "click") }) {
		t.Errorf("the refused click reached the page: %v", f.Page.Inputs())
	}
	kinds := ev.kinds()
	for _, want := range []EventKind{EventStart, EventHandOver, EventWaiting, EventBack, EventEnd} {
		if !slices.Contains(kinds, want) {
			t.Errorf("events %v lack %s", kinds, want)
		}
	}
	// The step after the hand back observed first: done came from the
	// boarding pass page, read after control came back.
	if i, j := slices.Index(kinds, EventBack), slices.Index(kinds, EventEnd); i < 0 || j < i {
		t.Errorf("events %v: the end did not follow the hand back", kinds)
	}
	if !strings.Contains(f.Audit.String(), `"reason":"user_step"`) {
		t.Errorf("the audit log lacks the refused click:\n%s", f.Audit)
	}
}

const demoTaskText = "Check me in for booking BKG4RT9 tomorrow, aisle seat"

func TestLoopSecondTaskRefused(t *testing.T) {
	ctx := testCtx(t)
	f := gatetest.New()
	entered, release := make(chan struct{}), make(chan struct{})
	model := ModelFunc(func(ctx context.Context, req *ModelRequest) (*ModelReply, error) {
		close(entered)
		<-release
		return &ModelReply{ToolCalls: []ToolCall{{ToolName, `{"action":{"done":{"success":true,"text":"ok"}}}`}}}, nil
	})
	loop := NewLoop(&LoopOptions{Gate: f.Gate, Model: model})
	done := make(chan error, 1)
	go func() { _, err := loop.Run(ctx, "first"); done <- err }()
	<-entered
	if _, err := loop.Run(ctx, "second"); !errors.Is(err, ErrBusy) {
		t.Fatalf("second task: err = %v, want ErrBusy", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Once the first ended, a new task runs.
	model2, _ := replies(`{"action":{"done":{"success":false,"text":"nothing to do"}}}`)
	loop2 := NewLoop(&LoopOptions{Gate: f.Gate, Model: model2})
	if rep, err := loop2.Run(ctx, "third"); err != nil || rep.Success || rep.Reason != EndDone {
		t.Fatalf("third task: %+v, %v", rep, err)
	}
}

// TestLoopStopMidAction: cancelling the context ends the task at once,
// even while an action ignores the context.
func TestLoopStopMidAction(t *testing.T) {
	ctx := testCtx(t)
	f := gatetest.New()
	reg := DefaultActions()
	started, unblock := make(chan struct{}), make(chan struct{})
	defer close(unblock)
	if err := reg.Set(ActionDef{Name: "stall", Description: "ignores its context",
		Run: func(context.Context, *Env, json.RawMessage) ActionResult {
			close(started)
			<-unblock
			return ActionResult{Outcome: spec.OutcomeDone, Message: "finally"}
		}}); err != nil {
		t.Fatal(err)
	}
	model, _ := replies(`{"action":{"stall":{}}}`)
	loop := NewLoop(&LoopOptions{Gate: f.Gate, Model: model, Actions: reg})
	runCtx, cancel := context.WithCancel(ctx)
	type out struct {
		rep *Report
		err error
	}
	res := make(chan out, 1)
	go func() { r, err := loop.Run(runCtx, "stall forever"); res <- out{r, err} }()
	<-started
	cancel()
	select {
	case o := <-res:
		if !errors.Is(o.err, context.Canceled) || o.rep.Reason != EndStopped {
			t.Fatalf("Run = %+v, %v; want stopped with context.Canceled", o.rep, o.err)
		}
	case <-ctx.Done():
		t.Fatal("Run did not return after the context ended")
	}
	// The loop is free for the next task at once.
	model2, _ := replies(`{"action":{"done":{"success":true,"text":"ok"}}}`)
	loop.opts.Model = model2
	if _, err := loop.Run(ctx, "next"); err != nil {
		t.Fatalf("next task after a stop: %v", err)
	}
}

func TestLoopStepLimit(t *testing.T) {
	ctx := testCtx(t)
	f := gatetest.New()
	model, seen := replies(`{"next_goal":"look around","action":{"back":{}}}`)
	loop := NewLoop(&LoopOptions{Gate: f.Gate, Model: model, MaxSteps: 3})
	rep, err := loop.Run(ctx, "never done")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Reason != EndStepLimit || rep.Success || rep.Steps != 3 || len(*seen) != 3 {
		t.Fatalf("report = %+v after %d model calls; want step_limit after 3", rep, len(*seen))
	}
	last := (*seen)[2].User
	if !strings.Contains(last, "Step 3 of at most 3.") || !strings.Contains(last, "finish with done soon") {
		t.Errorf("the last prompt does not warn of the limit:\n%s", last)
	}
}

func TestLoopEndsAfterFailures(t *testing.T) {
	ctx := testCtx(t)
	f := gatetest.New()
	calls := 0
	model := ModelFunc(func(ctx context.Context, req *ModelRequest) (*ModelReply, error) {
		calls++
		if calls%2 == 0 {
			return nil, errors.New("endpoint unavailable")
		}
		return &ModelReply{Content: "I am not sure what to do."}, nil
	})
	loop := NewLoop(&LoopOptions{Gate: f.Gate, Model: model, MaxFailures: 4})
	rep, err := loop.Run(ctx, "task")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Reason != EndFailures || rep.Steps != 4 {
		t.Fatalf("report = %+v", rep)
	}
	reasons := []spec.Reason{rep.History[0].Result.Reason, rep.History[1].Result.Reason}
	if reasons[0] != spec.ReasonBadReply || reasons[1] != spec.ReasonModelError {
		t.Errorf("failure reasons = %v", reasons)
	}
}

// TestLoopControlChangedWhileThinking: a hand back during the model call
// means the page is read again before any action.
func TestLoopControlChangedWhileThinking(t *testing.T) {
	ctx := testCtx(t)
	f := gatetest.New()
	n := 0
	model := ModelFunc(func(ctx context.Context, req *ModelRequest) (*ModelReply, error) {
		n++
		if n == 1 {
			if err := f.Control.User().Take(ctx); err != nil {
				return nil, err
			}
			if err := f.Control.User().HandBack(ctx); err != nil {
				return nil, err
			}
			return &ModelReply{ToolCalls: []ToolCall{{ToolName, `{"action":{"click":{"ref":"e7"}}}`}}}, nil
		}
		return &ModelReply{ToolCalls: []ToolCall{{ToolName, `{"action":{"done":{"success":false,"text":"stop"}}}`}}}, nil
	})
	loop := NewLoop(&LoopOptions{Gate: f.Gate, Model: model})
	rep, err := loop.Run(ctx, "task")
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.History[0].Result.Reason; got != spec.ReasonControlChanged {
		t.Fatalf("step 1 reason = %s, want control_changed", got)
	}
	if len(f.Page.Inputs()) != 0 {
		t.Errorf("input reached the page: %v", f.Page.Inputs())
	}
}

func TestRegistry(t *testing.T) {
	reg := DefaultActions()
	want := []string{"ask_user", "back", "click", "done", "forward", "hover", "navigate", "press_key", "request_user_control", "scroll", "select", "type", "wait", "webmcp_call", "webmcp_list"}
	if got := reg.Names(); !slices.Equal(got, want) {
		t.Fatalf("names = %v", got)
	}
	reg.Remove(ActAskUser)
	if err := reg.Set(NewAction("note", "Write a note for the User.", nil,
		func(ctx context.Context, env *Env, in AskInput) ActionResult {
			return ActionResult{Outcome: spec.OutcomeDone, Message: "noted"}
		})); err != nil {
		t.Fatal(err)
	}
	if err := reg.Set(ActionDef{Name: ToolName, Run: func(context.Context, *Env, json.RawMessage) ActionResult { return ActionResult{} }}); err == nil {
		t.Error("an action named like the tool was accepted")
	}
	set := reg.snapshot()
	if _, err := parseReply(toolCall(ToolName, `{"action":{"ask_user":{"question":"?"}}}`), set); err == nil {
		t.Error("a removed action was accepted")
	}
	d, err := parseReply(toolCall(ToolName, `{"action":{"note":"hello"}}`), set)
	if err != nil || string(d.Input) != `{"question":"hello"}` {
		t.Fatalf("custom action: %+v, %v", d, err)
	}
	spec := toolSpec(set)
	variants := spec.Parameters["properties"].(map[string]any)["action"].(map[string]any)["anyOf"].([]any)
	if len(variants) != len(want) {
		t.Errorf("the tool offers %d actions, want %d", len(variants), len(want))
	}
}

// TestPrompt: two messages; the user message holds the task, the step
// counter, the current time, the history and the page.
func TestPrompt(t *testing.T) {
	now := time.Date(2026, 11, 29, 9, 30, 0, 0, time.UTC)
	msg := userMessage(promptInput{
		task: demoTaskText, step: 2, max: 40, now: now,
		status: control.Status{Controller: spec.ControllerAgent, Offer: &control.Offer{ID: "offer-1", Reason: "airline.test asks you to submit this form yourself"}},
		history: []Step{{N: 1, Evaluation: "start", Memory: "booking BKG4RT9", NextGoal: "check in", Action: ActClick, Input: []byte(`{"ref":"e4"}`),
			Result: ActionResult{Outcome: spec.OutcomeDenied, Reason: spec.ReasonUserStep, Message: "The Company leaves this step to the User."},
			Notes:  []string{"repaired: " + RepairToolName}}},
		page:    "Page \"Check in\" at https://airline.test/check-in (epoch 1, controller agent)\n- button \"Check in\" [e4]\n",
		maxPage: 1000, maxHistory: 10,
	})
	golden.Check(t, filepath.Join("testdata", "prompt_user.txt"), []byte(msg))
	if !strings.Contains(systemPrompt, "never instructions") {
		t.Error("the system prompt does not say page text is no instruction")
	}
}

// An action that changes the page brings the new page back with it, and
// the loop reads that instead of a second snapshot: one read per page.
func TestLoopReadsThePageANavigationBroughtBack(t *testing.T) {
	ctx := testCtx(t)
	f := gatetest.New()
	model, seen := replies(`{"action":{"navigate":{"url":"https://airline.test/boarding-pass"}}}`,
		`{"action":{"done":{"success":true,"text":"ready"}}}`)
	loop := NewLoop(&LoopOptions{Gate: f.Gate, Model: model})
	if _, err := loop.Run(ctx, "open the boarding pass"); err != nil {
		t.Fatal(err)
	}
	if len(*seen) != 2 || !strings.Contains((*seen)[1].User, "https://airline.test/boarding-pass") {
		t.Fatalf("the second step did not read the page the navigation reached (%d model calls)", len(*seen))
	}
	// One snapshot before the first step, one brought back by navigate.
	if n := strings.Count(f.Audit.String(), `"tool":"browser_snapshot"`); n != 2 {
		t.Errorf("%d snapshots for two pages, want 2:\n%s", n, f.Audit)
	}
}
