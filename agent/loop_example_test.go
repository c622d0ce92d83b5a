package agent_test

import (
	"context"
	"fmt"

	"github.com/poppy-browser/poppy-browser/agent"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
)

// A loop over a gate, with a model that answers in its own way: here as
// JSON in the message content, which the tolerant parser repairs and notes.
func ExampleLoop_Run() {
	g := gate.New(&gate.Options{Control: control.New(nil)})
	model := agent.ModelFunc(func(ctx context.Context, req *agent.ModelRequest) (*agent.ModelReply, error) {
		return &agent.ModelReply{Content: `{"next_goal":"finish","action":{"done":{"success":false,"text":"There is no page to work on."}}}`}, nil
	})
	loop := agent.NewLoop(&agent.LoopOptions{Gate: g, Model: model, Observer: func(e agent.Event) {
		if e.Kind == agent.EventAct {
			fmt.Printf("step %d: %s -> %s; %v\n", e.Step.N, e.Step.Action, e.Step.Result.Outcome, e.Step.Notes)
		}
	}})
	rep, err := loop.Run(context.Background(), "check in")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s, success %v: %s\n", rep.Reason, rep.Success, rep.Text)
	// Output:
	// step 1: done -> done; [repaired: the step came as JSON in the message content instead of a tool call]
	// done, success false: There is no page to work on.
}
