package ui

import (
	"encoding/json"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestStepOutlineOnATakeRightAfterAHandBack: the User takes control, hands
// back, and takes again at once for a new offer on the same step: the
// step's outline is shown on the second take and stays while the User
// holds control (the first turn's follower, ending late, must not clear
// the second turn's outline). The page is still (no frames), so a follower
// looks again only every stepEvery: a second here, so that the second take
// surely comes before the first turn's follower sees its turn ended.
func TestStepOutlineOnATakeRightAfterAHandBack(t *testing.T) {
	ctx := testContext(t)
	ctl := control.New(nil)
	page := newPage(ctx, t, "http://company.test/confirm")
	l, _ := startLive(t, ctl, page, func(l *Live) { l.stepEvery = time.Second })
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

	// The step is looked for within pinWait before a take: the first call
	// into the page's utility world, which creates it, is made here, so
	// that a loaded machine does not leave the outline out.
	var one int
	if err := page.MainFrame().Call(ctx, browser.UtilityWorld, `function() { return 1 }`, &one); err != nil {
		t.Fatal(err)
	}
	ctl.RequestUser("press go", step())
	send(t, c, map[string]string{"type": "take"})
	awaitStep("on the first take")
	// The second offer and take follow the hand back at once.
	back := make(chan struct{}, 1)
	unwatch := control.Watch(ctx, ctl, func(control.Event) {
		if ctl.Holder() == spec.ControllerAgent {
			select {
			case back <- struct{}{}:
			default:
			}
		}
	})
	send(t, c, map[string]string{"type": "hand_back", "text": ""})
	select {
	case <-back:
	case <-ctx.Done():
		t.Fatal("waiting for the hand back")
	}
	unwatch()
	ctl.RequestUser("press go again", step())
	send(t, c, map[string]string{"type": "take"})
	poll(ctx, t, "the second take", func() bool { return ctl.Holder() == spec.ControllerUser })
	awaitStep("on the second take")

	// The first turn's follower ends within a stepEvery of the hand back:
	// for two of them, no message may take the outline away.
	_ = c.SetReadDeadline(time.Now().Add(2 * l.stepEvery))
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
