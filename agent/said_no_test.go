package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate/gatetest"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestLoopStopsWaitingWhenTheUserSaysNo: the User declines the offer (or
// cancels their step) while the agent waits for them: the wait ends at
// once, the story says so, and the model is told not to wait, so the
// scripted model ends the task.
func TestLoopStopsWaitingWhenTheUserSaysNo(t *testing.T) {
	for _, how := range []string{"decline", "cancel"} {
		t.Run(how, func(t *testing.T) {
			ctx := testCtx(t)
			f := gatetest.New()
			offers, stop := f.Control.Subscribe()
			defer stop()
			// The User answers the offer: declines it, or takes control and
			// cancels.
			go func() {
				for e := range offers {
					if e.Kind != control.Offered {
						continue
					}
					if how == "cancel" {
						if err := f.Control.User().Take(ctx); err != nil {
							t.Error(err)
						}
					}
					if err := f.Control.User().Cancel(ctx); err != nil {
						t.Error(err)
					}
					return
				}
			}()
			var prompts []string
			n := 0
			model := ModelFunc(func(ctx context.Context, req *ModelRequest) (*ModelReply, error) {
				prompts = append(prompts, req.User)
				n++
				switch {
				case n == 1:
					return reply(`{"action":{"request_user_control":{"reason":"the airline asks you to check in"}}}`), nil
				case strings.Contains(req.User, UserSaidNo):
					return reply(`{"action":{"done":{"success":false,"text":"left to you"}}}`), nil
				default:
					return reply(`{"action":{"wait":{"seconds":30}}}`), nil
				}
			})
			var ev events
			rep, err := NewLoop(&LoopOptions{Gate: f.Gate, Model: model, Observer: ev.add}).Run(ctx, "check in")
			if err != nil {
				t.Fatal(err)
			}
			if rep.Reason != EndDone || rep.Text != "left to you" {
				t.Fatalf("report = %+v, want done with the model's words", rep)
			}
			if !hasKind(ev.kinds(), EventDeclined) {
				t.Errorf("events %v lack %s: the story does not say the User said no", ev.kinds(), EventDeclined)
			}
			for _, s := range rep.History {
				if s.Action == ActWait && !strings.Contains(s.Result.Message, "do not wait") && !strings.Contains(s.Result.Message, "took control") {
					t.Errorf("the wait ended with %q, want it cut short by the User's answer", s.Result.Message)
				}
			}
		})
	}
}

// TestLoopTakeWhileDecidingToWait: the User takes control while the model
// decides to wait for them (the demo's race): the wait is no failure, it
// ends at once, and the loop waits for the hand back.
func TestLoopTakeWhileDecidingToWait(t *testing.T) {
	ctx := testCtx(t)
	f := gatetest.New()
	n := 0
	model := ModelFunc(func(ctx context.Context, req *ModelRequest) (*ModelReply, error) {
		n++
		if n == 1 {
			if err := f.Control.User().Take(ctx); err != nil {
				return nil, err
			}
			return reply(`{"action":{"wait":{"seconds":30}}}`), nil
		}
		return reply(`{"action":{"done":{"success":true,"text":"ok"}}}`), nil
	})
	observe := func(e Event) {
		if e.Kind == EventWaiting {
			go func() {
				if err := f.Control.User().HandBack(ctx); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	rep, err := NewLoop(&LoopOptions{Gate: f.Gate, Model: model, Observer: observe}).Run(ctx, "task")
	if err != nil {
		t.Fatal(err)
	}
	first := rep.History[0]
	if first.Action != ActWait || first.Result.Outcome != spec.OutcomeDone || first.Result.Reason != "" {
		t.Fatalf("step 1 = %s %+v, want the wait done (no control_changed)", first.Action, first.Result)
	}
	if first.Result.Message != "The User took control of the browser." {
		t.Errorf("step 1 message = %q", first.Result.Message)
	}
}

func reply(args string) *ModelReply {
	return &ModelReply{ToolCalls: []ToolCall{{Name: ToolName, Arguments: args}}}
}

func hasKind(ks []EventKind, k EventKind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}
