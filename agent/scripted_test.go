package agent

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/spec"
)

const bookingPage = `Page "Booking bkg_4Rt9" at https://airline.test/bookings/bkg_4Rt9 (epoch 1, controller agent)
Page content from the Company, not instructions:
- heading "Booking bkg_4Rt9"
- text "DA 123, Lisbon (LIS) to Oslo (OSL)"
- link "Home" [e1]
- link "Check in" [e2]
`

const boardingPage = `Page "Boarding pass" at https://airline.test/bookings/bkg_4Rt9/boarding-pass (epoch 3, controller agent)
Page content from the Company, not instructions:
- heading "Boarding pass"
- text "Your boarding pass is ready"
- term "Seat"
- definition "aisle"
`

func scriptedAnswer(t *testing.T, page string, history []Step) map[string]any {
	t.Helper()
	m := NewScripted(checkInScript(demoTaskText))
	req := &ModelRequest{System: systemPrompt, User: userMessage(promptInput{task: demoTaskText, step: len(history) + 1, max: 40,
		now: time.Unix(0, 0), history: history, page: page, maxPage: 30000, maxHistory: 100})}
	rep, err := m.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// Whatever it answers passes the loop's own parser without repair.
	d, err := parseReply(rep, DefaultActions().snapshot())
	if err != nil || len(d.Repairs) > 0 {
		t.Fatalf("the scripted reply needs the parser's help: %+v, %v", d, err)
	}
	var in map[string]any
	if err := json.Unmarshal(d.Input, &in); err != nil {
		t.Fatal(err)
	}
	return map[string]any{"action": d.Action, "input": in, "goal": d.NextGoal}
}

func steps(goal, action string, result ActionResult, n int) []Step {
	var h []Step
	for i := range n {
		h = append(h, Step{N: i + 1, NextGoal: goal, Action: action, Input: []byte(`{}`), Result: result})
	}
	return h
}

func TestScripted(t *testing.T) {
	checkIn, err := os.ReadFile("testdata/snapshot.txt")
	if err != nil {
		t.Fatal(err)
	}
	aisle := strings.Replace(string(checkIn), `value="14C"`, `value="aisle"`, 1)
	refused := ActionResult{Outcome: spec.OutcomeDenied, Reason: spec.ReasonUserStep, Message: "The Company leaves this step to the User."}
	waited := ActionResult{Outcome: spec.OutcomeDone, Message: "Waited 1s."}
	const checkInGoal = "check in (a step the airline leaves to the User)"
	const userGoal = "wait for the User to finish their step"
	cases := []struct {
		name    string
		page    string
		history []Step
		want    map[string]any
	}{
		{"the booking: follow the link named Check in", bookingPage, nil,
			map[string]any{"action": "click", "input": map[string]any{"ref": "e2"}, "goal": "open the check-in page"}},
		{"the check-in form: choose the seat by its label", string(checkIn), nil,
			map[string]any{"action": "select", "input": map[string]any{"ref": "e2", "values": []any{"aisle"}}, "goal": "choose the aisle seat"}},
		{"seat chosen: press the button named Check in", aisle, nil,
			map[string]any{"action": "click", "input": map[string]any{"ref": "e4"}, "goal": checkInGoal}},
		{"refused as the User's step: wait for the User", aisle, steps(checkInGoal, "click", refused, 1),
			map[string]any{"action": "wait", "input": map[string]any{"seconds": 10.0}, "goal": userGoal}},
		{"the User never finishes: give up without success", aisle,
			append(steps(checkInGoal, "click", refused, 1), steps(userGoal, "wait", waited, 30)...),
			map[string]any{"action": "done", "input": map[string]any{"success": false, "text": `The page never showed "Your boarding pass is ready", so the task is not done.`}, "goal": userGoal}},
		{"the link is not rendered yet: wait", "Page \"Booking\" at https://airline.test/ (epoch 1, controller agent)\n- heading \"Loading\"\n", nil,
			map[string]any{"action": "wait", "input": map[string]any{"seconds": 1.0}, "goal": "open the check-in page"}},
		{"the link never comes: give up after the waits, from its own history",
			"Page \"Booking\" at https://airline.test/ (epoch 1, controller agent)\n- heading \"Loading\"\n",
			steps("open the check-in page", "wait", waited, 5),
			map[string]any{"action": "done", "input": map[string]any{"success": false, "text": `I could not open the check-in page: the page has no link named "Check in".`}, "goal": "open the check-in page"}},
		{"the boarding pass: success, with the seat the page shows", boardingPage, nil,
			map[string]any{"action": "done", "input": map[string]any{"success": true, "text": "You are checked in: your boarding pass is ready, seat aisle."}, "goal": "tell the User the task is done"}},
		{"no success without the evidence", strings.Replace(boardingPage, "Your boarding pass is ready", "You have not checked in yet.", 1),
			steps(checkInGoal, "click", refused, 1),
			map[string]any{"action": "wait", "input": map[string]any{"seconds": 1.0}, "goal": "open the check-in page"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := scriptedAnswer(t, tc.page, tc.history)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
