package agent

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
)

// Transcript prints what happens in a run as plain lines, one event a line:
// the agent's steps, hand-overs and (through Say) the User's part. Typed
// text shows as its length only. It is safe for concurrent use; the
// terminal UI can take its place through the same [LoopOptions.Observer]
// hook.
type Transcript struct {
	mu  sync.Mutex
	out io.Writer
}

// NewTranscript returns a transcript printing to out.
func NewTranscript(out io.Writer) *Transcript { return &Transcript{out: out} }

// Say prints one line.
func (s *Transcript) Say(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.out, format+"\n", args...)
}

// Event prints e; it is a [LoopOptions.Observer].
func (s *Transcript) Event(e Event) {
	switch e.Kind {
	case EventStart:
		s.Say("agent: task %q", e.Task)
	case EventAct:
		st := e.Step
		s.Say("step %d: %s: %s %s -> %s", st.N, dashIfEmpty(st.NextGoal), st.Action, shownInput(st.Action, st.Input), outcomeLine(st.Result))
		for _, n := range st.Notes {
			s.Say("  note: %s", n)
		}
	case EventFailed:
		st := e.Step
		s.Say("step %d: no action -> %s", st.N, outcomeLine(st.Result))
		for _, n := range st.Notes {
			s.Say("  note: %s", n)
		}
	case EventHandOver:
		s.Say("agent: offers the User control: %s", e.Message)
	case EventWaiting, EventBack, EventDeclined:
		s.Say("agent: %s", e.Message)
	case EventEnd:
		r := e.Report
		switch {
		case r.Reason == EndDone && r.Success:
			s.Say("agent: done after %d steps: %s", r.Steps, r.Text)
		case r.Reason == EndDone:
			s.Say("agent: gave up after %d steps: %s", r.Steps, r.Text)
		default:
			s.Say("agent: the task ended after %d steps (%s)", r.Steps, r.Reason)
		}
	}
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func outcomeLine(r ActionResult) string {
	o := string(r.Outcome)
	if r.Reason != "" {
		o += " (" + string(r.Reason) + ")"
	}
	return o + ": " + oneLine(r.Message, 200)
}

// shownInput is an action's input for the story; typed text shows as its
// length only.
func shownInput(action string, in json.RawMessage) string {
	if action != ActType {
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
