package ui

import (
	"encoding/json"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestStepOutlineOnATakeRightAfterAHandBack: the User takes control, hands
// back, and takes again at once for a new offer on the same step: the
// step's outline is shown on the second take and stays while the User
// holds control (the first turn's follower, ending late, must not clear
// the second turn's outline). The page is still (no frames), so a follower
// looks again only every stepPoll.
func TestStepOutlineOnATakeRightAfterAHandBack(t *testing.T) {
	ctx := testContext(t)
	ctl := control.New(nil)
	page := newPage(ctx, t, "http://company.test/confirm")
	l, _ := startLive(t, ctl, page, nil)
	c := connect(ctx, t, l)
	box := &control.Box{X: 0, Y: 0, Width: 300, Height: 200} // the page's one button
	step := func() *control.Step { return &control.Step{Kind: "submission", Text: "go", Box: box} }

	// awaitStep reads until a step message with an outline, while the User
	// holds control.
	awaitStep := func(what string) {
		t.Helper()
		dl, _ := ctx.Deadline()
		_ = c.SetReadDeadline(dl)
		for {
			var m struct {
				Type string  `json:"type"`
				Box  *boxMsg `json:"box"`
			}
			_, data, err := c.ReadMessage()
			if err != nil {
				t.Fatalf("waiting for the step's outline %s: %v", what, err)
			}
			if json.Unmarshal(data, &m) == nil && m.Type == "step" && m.Box != nil {
				return
			}
		}
	}

	ctl.RequestUser("press go", step())
	send(t, c, map[string]string{"type": "take"})
	awaitStep("on the first take")
	send(t, c, map[string]string{"type": "hand_back", "text": ""})
	poll(ctx, t, "the hand back", func() bool { return ctl.Holder() == spec.ControllerAgent })
	ctl.RequestUser("press go again", step())
	send(t, c, map[string]string{"type": "take"})
	poll(ctx, t, "the second take", func() bool { return ctl.Holder() == spec.ControllerUser })
	awaitStep("on the second take")

	// The first turn's follower ends within a stepPoll of the hand back:
	// for four of them, no message may take the outline away.
	_ = c.SetReadDeadline(time.Now().Add(4 * stepPoll))
	for {
		var m struct {
			Type string  `json:"type"`
			Box  *boxMsg `json:"box"`
		}
		_, data, err := c.ReadMessage()
		if ne := (net.Error)(nil); errors.As(err, &ne) && ne.Timeout() {
			break
		}
		if err != nil {
			t.Fatalf("reading the User channel: %v", err)
		}
		if json.Unmarshal(data, &m) == nil && m.Type == "step" && m.Box == nil && ctl.Holder() == spec.ControllerUser {
			t.Fatal("the step's outline was taken away during the second turn, the step still on screen")
		}
	}
	l.mu.Lock()
	shown := l.step != nil
	l.mu.Unlock()
	if !shown {
		t.Error("no outline for a viewer that joins the second turn now")
	}
}
