package gate_test

import (
	"context"
	"fmt"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/gate/gatetest"
)

// Every action passes Gate.Do: a snapshot hands out refs, a click on the
// step the Company leaves to the User is refused with the mark, and while
// the User holds control nothing runs.
func ExampleGate_Do() {
	ctx := context.Background()
	f := gatetest.New() // a gate over a fake check-in page
	snap := f.Gate.Do(ctx, gate.Snapshot{})
	fmt.Println(snap.Outcome, len(snap.Elements), "elements")

	r := f.Gate.Do(ctx, gate.Click{Ref: "e4"}) // the Check in button
	fmt.Println(r.Outcome, r.Reason, r.Mark.Kind, r.Mark.Marked)

	_ = f.Control.User().Take(ctx) // the User, through their own channel
	r = f.Gate.Do(ctx, gate.Click{Ref: "e2"})
	fmt.Println(r.Outcome, r.Reason, f.Page.Inputs())
	// Output:
	// done 6 elements
	// denied user_step submission e1
	// denied user_has_control []
}
