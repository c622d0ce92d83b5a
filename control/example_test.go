package control_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/control"
)

// frames stands for the runtime's hand-over (package supervisor's): what
// every Company frame reads changes before control says so.
type frames struct{}

func (frames) Take(_ context.Context, d *control.Device) (*control.Device, error) {
	fmt.Println("frames now read user")
	return d, nil
}

func (frames) Return(context.Context) error {
	fmt.Println("frames now read agent")
	return nil
}

func (frames) Resize(context.Context, *control.Device) error { return nil }

// A whole hand-over: the agent offers control and answers its model at
// once; the User takes control (the hand-over sets every frame first),
// acts, and hands back; the agent must look at the page again.
func Example() {
	ctx := context.Background()
	now := func() time.Time { return time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC) }
	c := control.New(&control.Options{
		Handover: frames{},
		Audit:    audit.New(os.Stdout, now).WithRun("run-1"),
		Now:      now,
	})

	offer := c.RequestUser("the airline asks you to check in yourself", &control.Step{Ref: "e12", Kind: "submission"})
	fmt.Println("offered", offer.ID, "holder", c.Holder())

	user := c.User() // for the terminal UI and the live view only
	if err := user.Take(ctx); err != nil {
		fmt.Println(err)
	}
	fmt.Println("holder", c.Holder())
	if err := user.HandBack(ctx); err != nil {
		fmt.Println(err)
	}

	s, _ := c.WaitForAgent(ctx)
	fmt.Println("holder", s.Controller, "epoch", s.Epoch, "must reobserve", s.MustReobserve, "last", s.LastReturn.How)
	c.Observed()
	fmt.Println("must reobserve", c.Status().MustReobserve)
	// Output:
	// {"time":"2026-03-01T09:30:00Z","run":"run-1","event":"offer","ref":"e12","reason":"the airline asks you to check in yourself","by":"agent","offer":"offer-1"}
	// offered offer-1 holder agent
	// frames now read user
	// {"time":"2026-03-01T09:30:00Z","run":"run-1","event":"control","ref":"e12","from":"agent","to":"user","how":"take","by":"user","offer":"offer-1","proof":{"kind":"terminal"}}
	// holder user
	// frames now read agent
	// {"time":"2026-03-01T09:30:00Z","run":"run-1","event":"control","ref":"e12","from":"user","to":"agent","how":"handed_back","by":"user","offer":"offer-1","control_epoch":1}
	// holder agent epoch 1 must reobserve true last handed_back
	// must reobserve false
}
