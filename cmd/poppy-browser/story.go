package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/poppy-browser/poppy-browser/agent"
)

// story prints what happens as plain lines, one event a line: the agent's
// steps, hand-overs and the User's part. The terminal UI can take its
// place through the same agent.Event hook.
type story struct {
	mu  sync.Mutex
	out io.Writer
}

func newStory(out io.Writer) *story { return &story{out: out} }

// say prints one line.
func (s *story) say(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.out, format+"\n", args...)
}

// event is the loop's observer.
func (s *story) event(e agent.Event) {
	switch e.Kind {
	case agent.EventStart:
		s.say("agent: task %q", e.Task)
	case agent.EventAct:
		st := e.Step
		s.say("step %d: %s: %s %s -> %s", st.N, orDash(st.NextGoal), st.Action, shownInput(st.Action, st.Input), outcome(st.Result))
		for _, n := range st.Notes {
			s.say("  note: %s", n)
		}
	case agent.EventFailed:
		st := e.Step
		s.say("step %d: no action -> %s", st.N, outcome(st.Result))
		for _, n := range st.Notes {
			s.say("  note: %s", n)
		}
	case agent.EventHandOver:
		s.say("agent: offers the User control: %s", e.Message)
	case agent.EventWaiting, agent.EventBack:
		s.say("agent: %s", e.Message)
	case agent.EventEnd:
		r := e.Report
		switch {
		case r.Reason == agent.EndDone && r.Success:
			s.say("agent: done after %d steps: %s", r.Steps, r.Text)
		case r.Reason == agent.EndDone:
			s.say("agent: gave up after %d steps: %s", r.Steps, r.Text)
		default:
			s.say("agent: the task ended after %d steps (%s)", r.Steps, r.Reason)
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func outcome(r agent.ActionResult) string {
	o := string(r.Outcome)
	if r.Reason != "" {
		o += " (" + string(r.Reason) + ")"
	}
	return o + ": " + oneLine(r.Message, 200)
}

// shownInput is an action's input for the story; typed text shows as its
// length only.
func shownInput(action string, in json.RawMessage) string {
	if action != agent.ActType {
		return oneLine(string(in), 200)
	}
	var m map[string]any
	if json.Unmarshal(in, &m) != nil {
		return "{…}"
	}
	if t, ok := m["text"].(string); ok {
		m["text"] = fmt.Sprintf("(%d characters)", len([]rune(t)))
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
