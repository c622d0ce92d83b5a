package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/spec"
)

// ActionDef is one action the loop offers its model: a name, a description,
// the JSON schema its input must satisfy, and what running it does. Run may
// reach the page only through env.Gate.
type ActionDef struct {
	Name        string
	Description string
	// Input is the schema of the action's input object. Nil means an
	// object with no properties.
	Input *jsonschema.Schema
	// Run performs the action with an input that passed Input.
	Run func(ctx context.Context, env *Env, input json.RawMessage) ActionResult
}

// Env is what an action may use. The gate is the one path to the page;
// Control is for reading who holds the browser and for offers (never
// [control.Control.User]).
type Env struct {
	Gate *gate.Gate
	// AskUser asks the User a question and returns the answer. Nil means
	// no User can be asked.
	AskUser func(ctx context.Context, question string) (string, error)
	// Offer raises an offer of control to the User for the marked step
	// ref names (empty: no particular step).
	Offer func(reason, ref string) control.Offer
	// UserSaidNo reports, in words, the User's decline of the offer or
	// cancel of their step during this task while it stands (no new
	// offer since); "" otherwise. Nil means never.
	UserSaidNo func() string
}

// ActionResult is what an action did, for the history and the observer.
type ActionResult struct {
	Outcome spec.Outcome   `json:"outcome"`
	Reason  spec.Reason    `json:"reason,omitempty"`
	Message string         `json:"message"`
	Mark    *gate.MarkRefs `json:"mark,omitempty"`
	// Offer is set when the action offered control to the User.
	Offer *control.Offer `json:"offer,omitempty"`
	// Final is set by an action that ends the task (done).
	Final *Final `json:"final,omitempty"`
	// Seen is the snapshot an action that changed the page brought back
	// (gate.DoAndSee); the loop reads it instead of taking another.
	Seen *gate.Result `json:"-"`
}

// Final is how the model ended the task.
type Final struct {
	Success bool   `json:"success"`
	Text    string `json:"text"`
}

// fromGate turns a gate result into an action result.
func fromGate(r gate.Result) ActionResult {
	res := ActionResult{Outcome: r.Outcome, Reason: r.Reason, Message: r.Message, Mark: r.Mark}
	if r.Text != "" {
		res.Seen = &r
	}
	return res
}

// NewAction defines an action whose input is In, with In's schema inferred
// from its json and jsonschema tags; edit (optional) tightens it. It panics
// on a type with no schema: a wiring mistake.
func NewAction[In any](name, description string, edit func(*jsonschema.Schema), run func(ctx context.Context, env *Env, in In) ActionResult) ActionDef {
	return ActionDef{Name: name, Description: description, Input: gate.SchemaFor[In](edit), Run: decoded(run)}
}

// Registry is the set of actions the loop offers. The zero value is
// empty; [DefaultActions] holds the built-in ones. It is safe for
// concurrent use; a running task sees the set as it was at its start.
type Registry struct {
	mu      sync.Mutex
	actions map[string]*registered
}

type registered struct {
	def      ActionDef
	resolved *jsonschema.Resolved
	fields   []string // the input's property names, sorted
}

// Set adds an action, or replaces the one with its name.
func (r *Registry) Set(def ActionDef) error {
	if def.Name == "" || def.Run == nil {
		return errors.New("registering an action: name and run are required")
	}
	if def.Name == ToolName {
		return fmt.Errorf("registering an action: %s is the name of the tool", ToolName)
	}
	in := def.Input
	if in == nil {
		in = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
		def.Input = in
	}
	res, err := in.Resolve(nil)
	if err != nil {
		return fmt.Errorf("registering action %s: %w", def.Name, err)
	}
	reg := &registered{def: def, resolved: res}
	for name := range in.Properties {
		reg.fields = append(reg.fields, name)
	}
	slices.Sort(reg.fields)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.actions == nil {
		r.actions = make(map[string]*registered)
	}
	r.actions[def.Name] = reg
	return nil
}

// Remove removes the action with that name, if any.
func (r *Registry) Remove(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.actions, name)
}

// Names lists the registered actions, sorted.
func (r *Registry) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.actions))
	for n := range r.actions {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// snapshot copies the set for one task.
func (r *Registry) snapshot() actionSet {
	r.mu.Lock()
	defer r.mu.Unlock()
	set := make(actionSet, len(r.actions))
	for n, a := range r.actions {
		set[n] = a
	}
	return set
}

// actionSet is the actions of one task, by name.
type actionSet map[string]*registered

func (s actionSet) names() []string {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Names of the built-in actions; the browser actions' names are the
// gate's catalogue's (gate.Entry.Loop).
const (
	ActClick       = "click"
	ActType        = "type"
	ActSelect      = "select"
	ActPressKey    = "press_key"
	ActScroll      = "scroll"
	ActNavigate    = "navigate"
	ActBack        = "back"
	ActWait        = "wait"
	ActAskUser     = "ask_user"
	ActRequestUser = "request_user_control"
	ActWebMCPList  = "webmcp_list" // the page's WebMCP tools (gate.WebMCPList)
	ActWebMCPCall  = "webmcp_call" // one of them (gate.WebMCPCall)
	ActDone        = "done"
)

// AskInput is ask_user's input.
type AskInput struct {
	Question string `json:"question" jsonschema:"one question for the User"`
}

// DoneInput is done's input.
type DoneInput struct {
	Success bool   `json:"success" jsonschema:"true only when the page shows the task is complete"`
	Text    string `json:"text" jsonschema:"what you tell the User: the outcome, with what the page shows"`
}

// DefaultActions returns a registry holding the built-in actions: the
// gate's catalogue of browser actions (every entry with a loop name; the
// loop takes its own snapshots), its wait ending early when control
// changes hands, and ask_user, request_user_control and done.
func DefaultActions() *Registry {
	r := &Registry{}
	var defs []ActionDef
	for _, e := range gate.Catalogue() {
		if e.Loop.Name == "" {
			continue
		}
		def := ActionDef{Name: e.Loop.Name, Description: e.Loop.Brief, Input: e.Input, Run: gated(e)}
		if e.Loop.Name == ActWait {
			def.Description = "Wait up to 30 seconds for the page to change, or until a text appears; returns early when control of the browser changes hands."
			def.Run = decoded(runWait)
		}
		defs = append(defs, def)
	}
	defs = append(defs,
		NewAction(ActAskUser, "Ask the User a question and read the answer. Only when the task cannot go on without it.", nil, runAsk),
		NewAction(ActRequestUser, "Offer control of the browser to the User for a step that is theirs. Answers at once; the User takes control in their own time.", nil,
			func(ctx context.Context, env *Env, in gate.RequestInput) ActionResult {
				o := env.Offer(in.Reason, in.Ref)
				return ActionResult{Outcome: spec.OutcomeDone, Offer: &o,
					Message: "The User has been offered control; continue other work or wait."}
			}),
		NewAction(ActDone, "End the task: success true only when the page shows it complete; text is what you tell the User.", nil,
			func(ctx context.Context, env *Env, in DoneInput) ActionResult {
				return ActionResult{Outcome: spec.OutcomeDone, Message: "Task ended.", Final: &Final{Success: in.Success, Text: in.Text}}
			}),
	)
	for _, d := range defs {
		if err := r.Set(d); err != nil {
			panic("agent: " + err.Error())
		}
	}
	return r
}

// gated runs a catalogue entry's action through the gate.
func gated(e gate.Entry) func(ctx context.Context, env *Env, input json.RawMessage) ActionResult {
	return func(ctx context.Context, env *Env, input json.RawMessage) ActionResult {
		a, err := e.Action(input)
		if err != nil {
			return badInput(err)
		}
		return fromGate(env.Gate.DoAndSee(ctx, a))
	}
}

// decoded adapts a typed run to raw input.
func decoded[In any](run func(ctx context.Context, env *Env, in In) ActionResult) func(ctx context.Context, env *Env, input json.RawMessage) ActionResult {
	return func(ctx context.Context, env *Env, raw json.RawMessage) ActionResult {
		var in In
		if err := json.Unmarshal(raw, &in); err != nil {
			return badInput(err)
		}
		return run(ctx, env, in)
	}
}

func badInput(err error) ActionResult {
	return ActionResult{Outcome: spec.OutcomeFailed, Reason: spec.ReasonBadArgument, Message: "The input does not fit the action: " + err.Error()}
}

func runAsk(ctx context.Context, env *Env, in AskInput) ActionResult {
	if env.AskUser == nil {
		return ActionResult{Outcome: spec.OutcomeFailed, Reason: spec.ReasonNoUser,
			Message: "No User can be asked here; decide with what you know, or end the task with done."}
	}
	ans, err := env.AskUser(ctx, in.Question)
	if err != nil {
		return ActionResult{Outcome: spec.OutcomeFailed, Reason: spec.ReasonNoAnswer, Message: "The User did not answer."}
	}
	return ActionResult{Outcome: spec.OutcomeDone, Message: "The User answered: " + clipN(ans, 200)}
}

// runWait waits for a text through the gate, or for a time that ends early
// when control of the browser changes hands (the User takes it or hands
// it back).
func runWait(ctx context.Context, env *Env, in gate.WaitInput) ActionResult {
	if in.Text != "" {
		return fromGate(env.Gate.Do(ctx, gate.Wait{Seconds: in.Seconds, Text: in.Text}))
	}
	d := secondsOr(in.Seconds, 1)
	ctl := env.Gate.Control()
	// The first change of control that ends the wait, as its result.
	ended := make(chan ActionResult, 1)
	stop := control.Watch(ctx, ctl, func(e control.Event) {
		if r, ok := waitEndedBy(e); ok {
			select {
			case ended <- r:
			default: // an earlier change ended it already
			}
		}
	})
	defer stop()
	if ctl.Holder() == spec.ControllerUser {
		// The User took control while the model decided to wait for them.
		return ActionResult{Outcome: spec.OutcomeDone, Message: "The User took control of the browser."}
	}
	if env.UserSaidNo != nil && env.UserSaidNo() != "" {
		// They answered while the model decided: nothing to wait for.
		return ActionResult{Outcome: spec.OutcomeDone, Message: "The User declined your offer of control or cancelled their step: do not wait for them."}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ActionResult{Outcome: spec.OutcomeFailed, Reason: spec.ReasonTimeout, Message: "The wait was cut short."}
	case <-t.C:
		return ActionResult{Outcome: spec.OutcomeDone, Message: fmt.Sprintf("Waited %s.", d)}
	case r := <-ended:
		return r
	}
}

// waitEndedBy is the result of a wait that a change of control ends: the
// User declined, took control or gave it back. A new offer does not end
// it.
func waitEndedBy(e control.Event) (ActionResult, bool) {
	done := func(msg string) (ActionResult, bool) {
		return ActionResult{Outcome: spec.OutcomeDone, Message: msg}, true
	}
	switch e.Kind {
	case control.Declined:
		return done("The User declined your offer of control: do not wait for them.")
	case control.Taken:
		return done("The User took control of the browser.")
	case control.Cancelled:
		return done("The User cancelled their step and gave control back: do not wait for them.")
	case control.HandedBack:
		return done("The User gave control back (handed_back).")
	}
	return ActionResult{}, false
}
