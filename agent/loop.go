package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/spec"
)

// ErrBusy is returned by [Loop.Run] while another task runs.
var ErrBusy = errors.New("a task is already running")

// DefaultMaxSteps is a task's step limit when [LoopOptions.MaxSteps] is 0.
const DefaultMaxSteps = 40

// Why a task ended, in [Report.Reason].
const (
	EndDone      = "done"       // the model called done
	EndStepLimit = "step_limit" // the step limit was reached
	EndFailures  = "failures"   // too many model calls in a row failed
	EndStopped   = "stopped"    // the context ended
)

// LoopOptions configures a [Loop]. Gate and Model are required.
type LoopOptions struct {
	Gate  *gate.Gate
	Model Model
	// Actions are the actions offered to the model. Nil means
	// [DefaultActions].
	Actions *Registry
	// MaxSteps bounds a task's steps (model calls). 0 means
	// [DefaultMaxSteps].
	MaxSteps int
	// MaxFailures ends a task after that many failed model calls or
	// unreadable replies in a row. 0 means 5.
	MaxFailures int
	// MaxPageChars bounds the page in the prompt, in runes. 0 means 30000.
	MaxPageChars int
	// MaxHistory bounds the steps shown in the prompt (the latest). 0
	// means 25.
	MaxHistory int
	// Observer hears every step as it happens, on the loop's goroutine; it
	// must return quickly. Nil means nobody listens.
	Observer func(Event)
	// AskUser answers ask_user. Nil means no User can be asked.
	AskUser func(ctx context.Context, question string) (string, error)
	// Now is the clock of the prompt's "Current time:" line. Nil means
	// time.Now.
	Now func() time.Time
	// Logger receives debug logs. Nil discards.
	Logger *slog.Logger
}

// Loop is the built-in agent: each step it observes the page (a fresh
// snapshot through the gate), thinks (one model call), acts (one action
// through the same gate) and records the step. It runs one task at a time;
// it is safe for concurrent use.
type Loop struct {
	opts    LoopOptions
	running atomic.Bool
}

// NewLoop returns a loop over opts.Gate and opts.Model.
func NewLoop(opts *LoopOptions) *Loop {
	l := &Loop{opts: *opts}
	o := &l.opts
	if o.Actions == nil {
		o.Actions = DefaultActions()
	}
	if o.MaxSteps <= 0 {
		o.MaxSteps = DefaultMaxSteps
	}
	if o.MaxFailures <= 0 {
		o.MaxFailures = 5
	}
	if o.MaxPageChars <= 0 {
		o.MaxPageChars = 30000
	}
	if o.MaxHistory <= 0 {
		o.MaxHistory = 25
	}
	if o.Observer == nil {
		o.Observer = func(Event) {}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return l
}

// Step is one step of a task, as the history keeps it.
type Step struct {
	N          int             `json:"n"`
	Evaluation string          `json:"evaluation_previous_goal,omitempty"`
	Memory     string          `json:"memory,omitempty"`
	NextGoal   string          `json:"next_goal,omitempty"`
	Action     string          `json:"action,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`
	Result     ActionResult    `json:"result"`
	// Notes are what the loop adds: repairs of the reply, hand-overs.
	Notes []string `json:"notes,omitempty"`
}

// Report is how a task ended.
type Report struct {
	Task    string `json:"task"`
	Reason  string `json:"reason"` // EndDone, EndStepLimit, EndFailures or EndStopped
	Success bool   `json:"success"`
	Text    string `json:"text,omitempty"` // what the model told the User with done
	Steps   int    `json:"steps"`
	History []Step `json:"history"`
}

// EventKind names an [Event].
type EventKind string

// Events of a task, in the order they can happen.
const (
	EventStart    EventKind = "start"     // the task began
	EventThink    EventKind = "think"     // the model chose an action
	EventAct      EventKind = "act"       // the action ran; Step holds its result
	EventFailed   EventKind = "failed"    // a step ran no action (model error, bad reply, control changed)
	EventHandOver EventKind = "hand_over" // the User was offered control
	EventWaiting  EventKind = "waiting"   // the User holds control; the loop waits for the hand back
	EventBack     EventKind = "back"      // control is back; the page is read again
	EventDeclined EventKind = "declined"  // the User declined the offer or cancelled their step; the loop goes on without them
	EventEnd      EventKind = "end"       // the task ended; Report is set
)

// Event is what the loop tells its observer.
type Event struct {
	Kind    EventKind
	Task    string
	Step    *Step          // think, act, failed
	Offer   *control.Offer // hand_over
	Report  *Report        // end
	Message string
}

// Run runs one task to its end: the model's done, the step limit, or too
// many failed model calls in a row. It returns ErrBusy while another task
// runs, and the context's error, with the report so far, when ctx ends,
// even if an action in progress ignores ctx.
func (l *Loop) Run(ctx context.Context, task string) (*Report, error) {
	if task == "" {
		return nil, errors.New("running a task: the task is empty")
	}
	if !l.running.CompareAndSwap(false, true) {
		return nil, ErrBusy
	}
	defer l.running.Store(false)
	t := &taskRun{l: l, o: &l.opts, actions: l.opts.Actions.snapshot(), report: &Report{Task: task}}
	t.start = l.opts.Gate.Control().Status() // a decline or cancel from before this task is not news
	t.env = &Env{Gate: l.opts.Gate, AskUser: l.opts.AskUser, Offer: t.offer,
		UserSaidNo: func() string { return userEnded(l.opts.Gate.Control().Status(), t.start) }}
	t.tool = toolSpec(t.actions)
	return t.run(ctx)
}

// taskRun is one task in progress.
type taskRun struct {
	l       *Loop
	o       *LoopOptions
	actions actionSet
	env     *Env
	tool    ToolSpec
	report  *Report
	start   control.Status // at the task's start: earlier answers of the User are not news
}

func (t *taskRun) emit(e Event) {
	e.Task = t.report.Task
	t.o.Observer(e)
}

func (t *taskRun) end(reason string) *Report {
	t.report.Reason = reason
	t.report.Steps = len(t.report.History)
	r := *t.report
	t.emit(Event{Kind: EventEnd, Report: &r})
	return t.report
}

func (t *taskRun) stopped(ctx context.Context) (*Report, error) {
	return t.end(EndStopped), fmt.Errorf("task stopped: %w", context.Cause(ctx))
}

func (t *taskRun) record(s Step, kind EventKind) {
	t.report.History = append(t.report.History, s)
	t.emit(Event{Kind: kind, Step: &s})
}

func (t *taskRun) run(ctx context.Context) (*Report, error) {
	g, ctl := t.o.Gate, t.o.Gate.Control()
	t.emit(Event{Kind: EventStart})
	n, failures := 0, 0
	told, heard := "", ""
	var (
		seen   *gate.Result   // the page the last action brought back
		seenAt control.Status // control when it did
	)
	for {
		if ctx.Err() != nil {
			return t.stopped(ctx)
		}
		if n >= t.o.MaxSteps {
			return t.end(EndStepLimit), nil
		}
		// While the User holds the browser nothing runs: wait for the hand
		// back (never taking control), then read the page again.
		if ctl.Holder() == spec.ControllerUser {
			t.emit(Event{Kind: EventWaiting, Message: "the User holds the browser; waiting for them to hand it back"})
			if _, err := ctl.WaitForAgent(ctx); err != nil {
				return t.stopped(ctx)
			}
			t.emit(Event{Kind: EventBack, Message: "control is back; reading the page again"})
		}
		// The User said no (declined the offer, or cancelled their step):
		// stop waiting for them, say so, and let the model go on or end.
		if ended := userEnded(ctl.Status(), t.start); ended != told {
			told = ended
			if ended != "" {
				t.emit(Event{Kind: EventDeclined, Message: ended})
			}
		}

		// Observe: the snapshot the last action brought back when it
		// changed the page and control has not changed hands since, else
		// a new one.
		before := ctl.Status()
		var obs gate.Result
		if seen != nil && before.Epoch == seenAt.Epoch && before.Controller == spec.ControllerAgent {
			obs = *seen
		} else {
			var err error
			obs, err = await(ctx, func(ctx context.Context) gate.Result { return g.Do(ctx, gate.Snapshot{}) })
			if err != nil {
				return t.stopped(ctx)
			}
		}
		seen = nil
		if obs.Reason == spec.ReasonUserHasControl {
			continue
		}
		page := obs.Text
		if obs.Outcome != spec.OutcomeDone {
			page = fmt.Sprintf("(The page could not be read: %s)", obs.Message)
		}

		// Think.
		n++
		step := Step{N: n}
		req := &ModelRequest{System: systemPrompt, Tool: t.tool, User: userMessage(promptInput{
			task: t.report.Task, step: n, max: t.o.MaxSteps, now: t.o.Now(), status: before, saidNo: userEnded(before, t.start) != "",
			history: t.report.History, page: page, maxPage: t.o.MaxPageChars, maxHistory: t.o.MaxHistory,
		})}
		// The User's message reaches the model once, in the first step after
		// they left it.
		if said := userSaidKey(before); said != "" && said != heard {
			heard, req.UserSaid = said, before.UserMessage
		}
		type answer struct {
			reply *ModelReply
			err   error
		}
		ans, err := await(ctx, func(ctx context.Context) answer {
			r, err := t.o.Model.Complete(ctx, req)
			return answer{r, err}
		})
		if err != nil {
			return t.stopped(ctx)
		}
		var dec *Decision
		if ans.err == nil {
			dec, err = parseReply(ans.reply, t.actions)
		}
		if ans.err != nil || err != nil {
			step.Result = ActionResult{Outcome: spec.OutcomeFailed}
			if ans.err != nil {
				step.Result.Reason, step.Result.Message = spec.ReasonModelError, "The model call failed: "+ans.err.Error()
			} else {
				step.Result.Reason, step.Result.Message = spec.ReasonBadReply, "Your reply could not be read as a step: "+err.Error()+". Call "+ToolName+" with one action."
			}
			t.record(step, EventFailed)
			if failures++; failures >= t.o.MaxFailures {
				return t.end(EndFailures), nil
			}
			continue
		}
		failures = 0
		step.Evaluation, step.Memory, step.NextGoal = dec.Evaluation, dec.Memory, dec.NextGoal
		step.Action, step.Input = dec.Action, dec.Input
		for _, r := range dec.Repairs {
			step.Notes = append(step.Notes, "repaired: "+r)
		}
		t.emit(Event{Kind: EventThink, Step: &step})

		// Act, unless control changed hands since the page was read: then
		// the page is read again first. A wait touches nothing, so it runs
		// all the same (and ends at once while the User holds control): a
		// take by the User while the model decided to wait for them is the
		// normal flow, not a failure.
		if now := ctl.Status(); dec.Action != ActWait && (now.Epoch != before.Epoch || now.Controller == spec.ControllerUser) {
			step.Result = ActionResult{Outcome: spec.OutcomeFailed, Reason: spec.ReasonControlChanged,
				Message: "Control of the browser changed hands while you decided; nothing was done, and the page is read again."}
			t.record(step, EventFailed)
			continue
		}
		def := t.actions[dec.Action].def
		res, err := await(ctx, func(ctx context.Context) ActionResult { return def.Run(ctx, t.env, dec.Input) })
		if err != nil {
			step.Result = ActionResult{Outcome: spec.OutcomeFailed, Reason: spec.ReasonTimeout, Message: "Stopped while the action ran."}
			t.record(step, EventAct)
			return t.stopped(ctx)
		}
		if res.Reason == spec.ReasonUserStep && res.Offer == nil {
			ref := ""
			if res.Mark != nil {
				ref = res.Mark.Touches
			}
			o := t.offer(handOverReason(obs.Page, res.Mark), ref)
			res.Offer = &o
			res.Message = userStepLoopMessage(res.Mark)
		}
		seen, seenAt = res.Seen, ctl.Status()
		res.Seen = nil // the history keeps what the action did, not the page
		step.Result = res
		if res.Offer != nil {
			t.emit(Event{Kind: EventHandOver, Offer: res.Offer, Message: res.Offer.Reason})
		}
		t.record(step, EventAct)
		if res.Final != nil {
			t.report.Success, t.report.Text = res.Final.Success, res.Final.Text
			return t.end(EndDone), nil
		}
	}
}

// userSaidKey names the User's message of st and the return or decline
// it came with, so the same message is sent to the model once; "" for none.
func userSaidKey(st control.Status) string {
	if st.UserMessage == "" || st.Controller == spec.ControllerUser {
		return ""
	}
	key := fmt.Sprint(st.Epoch)
	if st.Declined != nil {
		key += "/" + st.Declined.Offer
	}
	return key + "/" + st.UserMessage
}

// userEnded says what the User last refused since the status start, in
// words for the story: their decline of the offer or the cancel of their
// step; "" when their last answer was neither, came before start, or an
// offer is open again.
func userEnded(st, start control.Status) string {
	if st.Offer != nil || st.Controller == spec.ControllerUser {
		return ""
	}
	r, d := st.LastReturn, st.Declined
	if r != nil && start.LastReturn != nil && !r.At.After(start.LastReturn.At) {
		r = nil
	}
	if d != nil && start.Declined != nil && d.Offer == start.Declined.Offer && !d.At.After(start.Declined.At) {
		d = nil
	}
	switch {
	case d != nil && (r == nil || d.At.After(r.At)):
		return "the User declined the offer of control (" + d.Offer + "); going on without them"
	case r != nil && r.How == control.HowCancelled:
		return "the User cancelled their step and gave the browser back; going on without them"
	}
	return ""
}

// offer raises an offer of control to the User for the step ref names.
func (t *taskRun) offer(reason, ref string) control.Offer {
	return t.o.Gate.Control().RequestUser(reason, t.o.Gate.StepFor(ref))
}

// handOverReason is what the User is told when the Company leaves a step
// to them.
func handOverReason(p gate.PageState, m *gate.MarkRefs) string {
	who := hostOf(p.URL)
	if who == "" {
		who = "The website"
	}
	if m != nil && m.Kind == spec.Submission {
		return fmt.Sprintf("%s asks you to submit this form yourself: take control, complete it, then hand back.", who)
	}
	return fmt.Sprintf("%s asks you to take this step yourself: take control, complete it, then hand back.", who)
}

// userStepLoopMessage replaces the gate's user_step message (written for
// MCP clients) once the loop has offered control itself.
func userStepLoopMessage(m *gate.MarkRefs) string {
	if m == nil {
		return "The Company leaves this step to the User; they have been offered control. Do not try another way: continue other work, or wait for them to hand back."
	}
	return fmt.Sprintf("The Company leaves this step to the User (%s mark on %s); they have been offered control. Do not try another way: continue other work, or wait for them to hand back.", m.Kind, m.Marked)
}

// await runs fn and returns its value, or ctx's error as soon as ctx ends
// even if fn ignores it (fn then finishes in the background).
func await[T any](ctx context.Context, fn func(context.Context) T) (T, error) {
	ch := make(chan T, 1)
	go func() { ch <- fn(ctx) }()
	select {
	case v := <-ch:
		if err := ctx.Err(); err != nil {
			return v, err
		}
		return v, nil
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// secondsOr is a wait's duration: s seconds, def when s is 0, at most
// gate.MaxWait.
func secondsOr(s, def float64) time.Duration {
	if s <= 0 {
		s = def
	}
	return min(time.Duration(s*float64(time.Second)), gate.MaxWait)
}

// hostOf is the host of a URL, or the URL when it has none (about:blank).
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return raw
	}
	return u.Hostname()
}
