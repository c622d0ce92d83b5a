package gate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// Prober is the gate's probe mode, for package check: conformance probes
// on the pages a checker opens, each action passing [Gate.Do]'s sequence
// (the User's turn, the element, the marks' verdict, control's input
// lease, the same dispatch) and recorded with by "check". Only a checker
// builds one; the MCP server and the built-in loop get a [Gate], never a
// Prober, whose AsUser acts for the User.
//
// A probe differs from an agent's action in three ways, each for what a
// conformance report must see: it names its element by frame and the
// scanner's local id (check reads the page itself, not a snapshot); it
// arms no in-page guard (but for a page's WebMCP tool, which runs with
// it armed so that its script never takes a marked step for real) and
// does not settle, as check watches what its input caused; and a probe AsUser gives the input a User may give.
//
// supervisor.Session creates it with [NewProber] (one gate per Control)
// and closes its gate. It is safe for concurrent use:
// one probe or snapshot runs at a time, on the page it names.
type Prober struct {
	g    *Gate
	mu   sync.Mutex                   // one call at a time: page is its page
	page atomic.Pointer[browser.Page] // the page of the call in flight

	// turn keeps navigator.poppy.controller in step with the pages that
	// share the browser: control changes it in every tab, so a turn of
	// the User's (AsUser) runs alone while the agent's turns (AsAgent)
	// share it.
	turn sync.RWMutex
}

// NewProber returns a gate in probe mode over opts. Its Page is the
// Prober's: the page each call names (a test's opts.Surface stays, and
// then the page named is not used). It is opts.Control's one gate (see
// [New]); [Prober.Gate] is that gate.
func NewProber(opts *Options) *Prober {
	p := &Prober{}
	o := *opts
	if o.Surface == nil {
		o.Page = p.page.Load
	}
	p.g = New(&o)
	p.g.by = ByCheck
	return p
}

// Gate is the prober's gate: the one gate of its Control, whose page is
// the page of the probe in flight (none between probes).
func (p *Prober) Gate() *Gate { return p.g }

// ByCheck is the by of a probe's audit lines.
const ByCheck = "check"

// Probe is one input of package check, on the element with local id ID
// of the frame Frame (a [browser.FrameID]) of the page.
type Probe struct {
	Frame string
	ID    int
	// Action is a [Click], [Type], [PressKey], [Select], [Hover] or a
	// [Scroll] with an empty Ref: the probe names the element.
	Action Action
	// AsUser gives the input a User may give: no mark refuses it (an
	// element gone still does). Check gives it during the User's turn
	// (AsUser), and during the agent's to see what a page sends then.
	AsUser bool
}

// Do runs the probe on page. A refusal is a result like any action's:
// denied (user_step, stale_ref), or failed before any input (obscured,
// not_visible, dialog_open).
func (p *Prober) Do(ctx context.Context, page *browser.Page, pr Probe) Result {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.page.Store(page)
	defer p.page.Store(nil)
	return p.g.do(ctx, pr.Action, &pr)
}

// Snapshot is the agent's browser_snapshot of page.
func (p *Prober) Snapshot(ctx context.Context, page *browser.Page) Result {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.page.Store(page)
	defer p.page.Store(nil)
	return p.g.Do(ctx, Snapshot{})
}

// AsAgent runs fn while the agent holds control, sharing the time with
// the other pages' turns of the agent's.
func (p *Prober) AsAgent(fn func() error) error {
	p.turn.RLock()
	defer p.turn.RUnlock()
	return fn()
}

// AsUser runs fn during a turn of the User's, alone: it takes control as
// the User's take does (every Company frame of every tab then reads
// "user") and hands it back after, whatever fn returned.
func (p *Prober) AsUser(ctx context.Context, fn func() error) error {
	p.turn.Lock()
	defer p.turn.Unlock()
	user := p.g.ctl.User()
	if err := user.Take(ctx); err != nil {
		return err
	}
	err := fn()
	// Back to the agent whatever happened: the other pages load as the agent.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	return errors.Join(err, user.HandBack(rctx))
}

// Close stops the prober's gate (see [Gate.Close]).
func (p *Prober) Close(ctx context.Context) error { return p.g.Close(ctx) }

// probeTarget gives the probe's element a ref of this epoch and returns
// the probe's action naming it.
func (r *run) probeTarget(ctx context.Context, pr *Probe, a Action) (Action, *Result) {
	for _, f := range r.frames() {
		if f.ID != pr.Frame {
			continue
		}
		ref := r.g.refs.assign(f.ID, pr.ID, f.URL).ref
		switch a := a.(type) {
		case Click:
			a.Ref = ref
			return a, nil
		case Type:
			a.Ref = ref
			return a, nil
		case PressKey:
			a.Ref = ref
			return a, nil
		case Select:
			a.Ref = ref
			return a, nil
		case Hover:
			a.Ref = ref
			return a, nil
		case Scroll:
			a.Ref = ref
			return a, nil
		case WebMCPCall:
			return a, nil // the page's tool names no element; Frame is the top frame
		}
		res := r.failed(ctx, spec.ReasonBadArgument, fmt.Sprintf("%s is not an action on an element.", a.Tool()))
		return a, &res
	}
	res := r.denied(ctx, spec.ReasonStaleRef, "The probe's frame is gone.")
	return a, &res
}

// Covering lists the marks that cover the element id of frame f, as the
// verdict of a key on it names them, for check's report of marks added
// late; nil for an element gone. It reads the page and gives no input.
func (p *Prober) Covering(ctx context.Context, f browser.Frame, id int) ([]marks.Mark, error) {
	v, err := marks.Check(ctx, f, marks.Action{Kind: marks.ActionKey, ID: id, Key: " "})
	if err != nil || v.Stale {
		return nil, err
	}
	return v.Marks, nil
}
