package agent

import (
	"os"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/spec"
)

// BenchmarkStepOverhead is the loop's own work per step around the model
// and the browser: the prompt (a 40-step history, the check-in page), the
// scripted model's answer and the tolerant parser.
func BenchmarkStepOverhead(b *testing.B) {
	page, err := os.ReadFile("testdata/snapshot.txt")
	if err != nil {
		b.Fatal(err)
	}
	actions := DefaultActions().snapshot()
	tool := toolSpec(actions)
	var hist []Step
	for i := range 40 {
		hist = append(hist, Step{N: i + 1, NextGoal: "open the check-in page", Action: ActWait, Input: []byte(`{"seconds":1}`),
			Result: ActionResult{Outcome: spec.OutcomeDone, Message: "Waited 1s."}})
	}
	m := NewScripted(checkInScript(demoTaskText))
	b.ReportAllocs()
	for b.Loop() {
		req := &ModelRequest{System: systemPrompt, Tool: tool, User: userMessage(promptInput{task: demoTaskText, step: 41, max: 80,
			now: time.Unix(0, 0), history: hist, page: string(page), maxPage: 30000, maxHistory: 25})}
		rep, err := m.Complete(b.Context(), req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := parseReply(rep, actions); err != nil {
			b.Fatal(err)
		}
	}
}
