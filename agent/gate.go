package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/internal/pagetext"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// GateOptions configures a [Gate]. Control is required.
type GateOptions struct {
	// Page returns the page the agent acts on, or nil when there is none.
	Page func() *browser.Page
	// Control says who holds the browser. The gate reads it; it never
	// changes the holder.
	Control *control.Control
	// Audit receives one line per decision. Nil records nothing.
	Audit *control.AuditLog
	// CompanyHost reports whether a host is the Company's, to label page
	// content in snapshots. Nil means no host is.
	CompanyHost func(host string) bool
	// Timeout bounds one action (a navigation included). 0 means 60 s.
	Timeout time.Duration
	// Logger receives debug logs. Nil discards.
	Logger *slog.Logger
}

// Gate is the one path from the agent's model to the page. Every agent
// action passes [Gate.Do]. Create it with [NewGate]; it is safe for
// concurrent use and runs one action at a time.
type Gate struct {
	ctl     *control.Control
	audit   *control.AuditLog
	company func(host string) bool
	timeout time.Duration
	log     *slog.Logger
	current func() surface

	sem chan struct{} // held while an action runs; guards the fields below

	refs     *refTable
	ctlEpoch uint64
	doc      string  // the top document's identity at the last sync
	last     surface // the page at the last sync

	// seen is the page state at the end of the last run, readable without
	// sem for refusals that must not wait.
	seen atomic.Pointer[PageState]
}

// NewGate returns a gate over the page opts.Page returns.
func NewGate(opts *GateOptions) *Gate {
	return newGate(opts, pageSurfaces(opts.Page))
}

func newGate(opts *GateOptions, current func() surface) *Gate {
	g := &Gate{
		ctl:     opts.Control,
		audit:   opts.Audit,
		company: opts.CompanyHost,
		timeout: opts.Timeout,
		log:     opts.Logger,
		current: current,
		sem:     make(chan struct{}, 1),
		refs:    newRefTable(),
	}
	if g.company == nil {
		g.company = func(string) bool { return false }
	}
	if g.timeout <= 0 {
		g.timeout = 60 * time.Second
	}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	return g
}

// pageSurfaces wraps the current browser page, keeping one wrapper per page
// so that a change of page is seen as one.
func pageSurfaces(page func() *browser.Page) func() surface {
	var last *pageSurface // only used under the gate's sem
	return func() surface {
		if page == nil {
			return nil
		}
		p := page()
		if p == nil {
			return nil
		}
		if last == nil || last.p != p {
			last = &pageSurface{p: p, width: 1280, height: 800}
		}
		return last
	}
}

// Controls is what the agent's code may do with control: read who holds
// the browser, offer it to the User, wait for it to come back. Taking,
// handing back and cancelling are the User's alone, so they are not here.
type Controls interface {
	Holder() spec.Controller
	Status() control.Status
	RequestUser(reason string, step *control.Step) control.Offer
	WaitForAgent(ctx context.Context) (control.Status, error)
	Subscribe() (<-chan control.Event, func())
	ObservedAt(epoch uint64) bool
}

// Control returns the control the gate reads, for the tools that offer
// control to the User and report it. It is not a way around the gate, and
// it gives no way to act for the User.
func (g *Gate) Control() Controls { return g.ctl }

// Do runs one action: it refuses at once while the User holds control,
// refuses refs of an older epoch, asks the page what the action touches and
// which marks cover it, refuses a marked step, and only then dispatches real
// input. It records the decision in the audit log and returns it. Denials
// and failures are results, never panics or errors.
func (g *Gate) Do(ctx context.Context, a Action) Result {
	if a == nil {
		return Result{Outcome: spec.OutcomeFailed, Reason: FailBadArgument, Message: "No action."}
	}
	if g.ctl.Holder() == spec.ControllerUser {
		res := g.userHasControl()
		g.record(a, "", res)
		return res
	}
	select {
	case g.sem <- struct{}{}:
	case <-ctx.Done():
		res := Result{Outcome: spec.OutcomeFailed, Reason: FailTimeout, Message: "Another browser action is still running; try again.",
			Page: g.lastPage()}
		g.record(a, "", res)
		return res
	}
	defer func() { <-g.sem }()
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()

	r := &run{g: g}
	res := r.start(ctx, a)
	if len(r.armed) > 0 {
		// An action that stopped between its check and its input: disarm
		// now, so the guard can never meet the User's input later.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		r.disarm(dctx)
		cancel()
	}
	seen := res.Page
	g.seen.Store(&seen)
	g.record(a, r.ref, res)
	return res
}

// lastPage is the page state the last run reported, with the current
// controller.
func (g *Gate) lastPage() PageState {
	var p PageState
	if s := g.seen.Load(); s != nil {
		p = *s
	}
	p.Controller = g.ctl.Holder()
	return p
}

func (g *Gate) userHasControl() Result {
	p := g.lastPage()
	p.Controller = spec.ControllerUser
	return Result{
		Outcome: spec.OutcomeDenied,
		Reason:  spec.ReasonUserHasControl,
		Message: "The User holds control of the browser, so no browser action runs. Continue other work or call browser_wait_for_control; when control is back, take a new snapshot.",
		Page:    p,
	}
}

// record writes one audit line for a decision. It never holds typed text:
// only tool, ref, reason, mark, epoch and the page URL.
func (g *Gate) record(a Action, ref string, res Result) {
	e := control.AuditEntry{Tool: a.Tool(), Ref: ref, URL: withoutQuery(res.Page.URL), Epoch: res.Page.Epoch}
	switch res.Outcome {
	case spec.OutcomeDone:
		e.Event = control.EventAction
		if _, ok := a.(Navigate); ok {
			e.Event = control.EventNavigate
		}
		if _, ok := a.(Back); ok {
			e.Event = control.EventNavigate
		}
	case spec.OutcomeDenied:
		e.Event, e.Reason = control.EventDenied, string(res.Reason)
	default:
		e.Event, e.Reason = control.EventError, string(res.Reason)
	}
	if res.Mark != nil {
		e.Mark = *res.Mark
	}
	if err := g.audit.Record(e); err != nil {
		g.log.Error("audit record failed", "tool", a.Tool(), "err", err)
	}
}

// run is one action in progress; it holds the gate's lock.
type run struct {
	g            *Gate
	s            surface
	ref          string // the ref the action named, for the audit line
	epochAtStart uint64
	armed        []string // frames whose in-page guard the last check armed
	// title is the top document's title read by the last disarm, valid
	// while the top document is titleDoc.
	title, titleDoc string
}

// start finds the page, syncs the epoch and applies the action.
func (r *run) start(ctx context.Context, a Action) Result {
	r.s = r.g.current()
	if r.s == nil {
		return Result{Outcome: spec.OutcomeFailed, Reason: FailNoPage, Message: "There is no page open.",
			Page: PageState{Controller: r.g.ctl.Holder(), Epoch: r.g.refs.epoch}}
	}
	r.sync(ctx)
	r.epochAtStart = r.g.refs.epoch
	return a.apply(ctx, r)
}

// sync starts a new epoch when control came back from the User, the page
// changed, or the top frame holds a new document.
func (r *run) sync(ctx context.Context) control.Status {
	g := r.g
	st := g.ctl.Status()
	doc, err := r.s.document(ctx)
	if err != nil {
		g.log.Debug("reading document identity failed", "err", err)
		doc = g.doc
	}
	if g.refs.epoch == 0 || st.Epoch != g.ctlEpoch || r.s != g.last || doc != g.doc {
		g.refs.bump()
		g.ctlEpoch, g.last, g.doc = st.Epoch, r.s, doc
		g.log.Debug("new epoch", "epoch", g.refs.epoch, "url", r.s.url())
	}
	return st
}

// page reports the page after the action, syncing the epoch first so that
// a navigation the action caused shows.
func (r *run) page(ctx context.Context) PageState {
	r.sync(ctx)
	title := r.title
	if r.titleDoc == "" || r.titleDoc != r.g.doc {
		title = r.s.title(ctx)
	}
	// The title is the page's text: one safe line (see package pagetext).
	return PageState{URL: r.s.url(), Title: pagetext.Line(title), Controller: r.g.ctl.Holder(), Epoch: r.g.refs.epoch}
}

// done, denied and failed build results with the page state.
func (r *run) done(ctx context.Context, msg string) Result {
	return Result{Outcome: spec.OutcomeDone, Message: msg, Page: r.page(ctx)}
}

func (r *run) denied(ctx context.Context, reason spec.Reason, msg string) Result {
	return Result{Outcome: spec.OutcomeDenied, Reason: reason, Message: msg, Page: r.page(ctx)}
}

func (r *run) failed(ctx context.Context, code spec.Reason, msg string) Result {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		code = FailTimeout
	}
	// The page may be gone with the context; report without waiting.
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	return Result{Outcome: spec.OutcomeFailed, Reason: code, Message: msg, Page: r.page(pctx)}
}

// resolve turns a ref into its element, or a denial.
func (r *run) resolve(ctx context.Context, ref string) (*target, *Result) {
	r.ref = ref
	t, reason := r.g.refs.lookup(ref)
	switch reason {
	case spec.ReasonStaleRef:
		res := r.denied(ctx, reason, staleMessage(ref))
		return nil, &res
	case spec.ReasonNoSuchRef:
		res := r.denied(ctx, reason, fmt.Sprintf("There is no element %q on this page; take a snapshot with browser_snapshot and use one of its refs.", ref))
		return nil, &res
	}
	for _, f := range r.s.frames() {
		if f.ID == t.frame && f.URL == t.frameURL {
			return t, nil
		}
	}
	res := r.denied(ctx, spec.ReasonStaleRef, fmt.Sprintf("The frame of %s has changed since the snapshot; take a new snapshot with browser_snapshot and use its refs.", ref))
	return nil, &res
}

func staleMessage(ref string) string {
	return fmt.Sprintf("Ref %s belongs to an older page epoch (the page changed, or control came back from the User); take a new snapshot with browser_snapshot and use its refs.", ref)
}

// check asks the page what the action touches and which marks cover it, in
// one round trip, and turns a refusal into a denial.
func (r *run) check(ctx context.Context, t *target, a marks.Action) (marks.Verdict, *Result) {
	a.Arm = a.Kind != "scroll" && a.Kind != "focus"
	v, err := r.s.check(ctx, t.frame, a)
	if a.Arm && err == nil {
		r.armed = append(r.armed, t.frame)
	}
	if err != nil {
		if errors.Is(err, browser.ErrFrameGone) {
			res := r.denied(ctx, spec.ReasonStaleRef, staleMessage(t.ref))
			return v, &res
		}
		res := r.failed(ctx, FailPage, "Could not read the page to check this action: "+err.Error())
		return v, &res
	}
	if res := r.verdict(ctx, t.frame, t.ref, v); res != nil {
		return v, res
	}
	return v, nil
}

// verdict turns a refusing verdict into a denial, or returns nil.
func (r *run) verdict(ctx context.Context, frame, ref string, v marks.Verdict) *Result {
	switch {
	case v.Stale:
		res := r.denied(ctx, spec.ReasonStaleRef, staleMessage(ref))
		return &res
	case len(v.Marks) > 0:
		m := r.markRefs(frame, v.Marks[0])
		res := r.denied(ctx, spec.ReasonUserStep, userStepMessage(m))
		res.Mark = m
		return &res
	case v.Obscured:
		res := r.failed(ctx, spec.ReasonObscured, fmt.Sprintf("Another element covers %s where a click would land, so nothing was clicked; close or scroll away what covers it, then take a new snapshot.", ref))
		return &res
	}
	return nil
}

// markRefs maps a verdict's local ids to refs of the current epoch,
// assigning new refs to elements the last snapshot did not list.
func (r *run) markRefs(frame string, m marks.Mark) *MarkRefs {
	url := ""
	for _, f := range r.s.frames() {
		if f.ID == frame {
			url = f.URL
		}
	}
	return &MarkRefs{
		Kind:    m.Kind,
		Marked:  r.g.refs.assign(frame, m.Marked, url).ref,
		Touches: r.g.refs.assign(frame, m.Touches, url).ref,
	}
}

func userStepMessage(m *MarkRefs) string {
	what := "change or activate it"
	if m.Kind == spec.Submission {
		what = "submit form " + m.Marked
	}
	return fmt.Sprintf("The Company leaves this step to the User (%s mark on %s): they want the User to %s. %s",
		m.Kind, m.Marked, what, userStepAdvice(m))
}

func userStepAdvice(m *MarkRefs) string {
	return fmt.Sprintf("Do not try another way; call browser_request_user_control with ref %s and a short reason, then continue other work or poll browser_wait_for_control.", m.Touches)
}

// input dispatches real input, after one last look at who holds control.
func (r *run) input(ctx context.Context, fn func() error) *Result {
	// The lease keeps a take from switching any frame to "user" while this
	// input is dispatched, and refuses the input if the User took control.
	end, ok := r.g.ctl.BeginAgentAction()
	if !ok {
		res := r.g.userHasControl()
		res.Page.URL, res.Page.Epoch = r.s.url(), r.g.refs.epoch
		return &res
	}
	err := func() error {
		defer end()
		return fn()
	}()
	caught, frame := r.disarm(ctx)
	if caught != nil && len(caught.Marks) > 0 {
		m := r.markRefs(frame, caught.Marks[0])
		res := r.denied(ctx, spec.ReasonUserStep, fmt.Sprintf("The in-page guard stopped this action's %s before the page saw it, because it reached a step the Company leaves to the User (%s mark on %s); the page changed under the action. %s",
			caught.Event, m.Kind, m.Marked, userStepAdvice(m)))
		res.Mark, res.CaughtBy = m, CaughtByGuard
		return &res
	}
	if err != nil {
		if errors.Is(err, marks.ErrStale) || errors.Is(err, browser.ErrFrameGone) {
			res := r.denied(ctx, spec.ReasonStaleRef, staleMessage(r.ref))
			return &res
		}
		res := r.failed(ctx, FailPage, "The browser did not take the input: "+err.Error())
		return &res
	}
	return nil
}

// disarm disarms the guard in every frame the run armed and returns the
// first thing it caught, with its frame. A frame gone since (a navigation
// the input started) caught nothing that took effect.
func (r *run) disarm(ctx context.Context) (*marks.Caught, string) {
	armed := r.armed
	r.armed = nil
	var first *marks.Caught
	var frame string
	frames := r.s.frames()
	for _, f := range armed {
		d, err := r.s.disarm(ctx, f)
		if err != nil {
			r.g.log.Debug("disarming the guard failed", "err", err)
			continue
		}
		if len(frames) > 0 && frames[0].ID == f {
			if doc, err := r.s.document(ctx); err == nil {
				r.title, r.titleDoc = d.Title, doc
			}
		}
		if d.Caught != nil && first == nil {
			first, frame = d.Caught, f
		}
	}
	return first, frame
}

// stillAgent returns a denial if the User took control during the run.
func (r *run) stillAgent() *Result {
	if r.g.ctl.Holder() != spec.ControllerUser {
		return nil
	}
	res := r.g.userHasControl()
	res.Page.URL, res.Page.Epoch = r.s.url(), r.g.refs.epoch
	return &res
}

// stepFor describes the marked step ref names, for an offer to the User.
// Text is the element's name as the page gives it (Company content, shown
// to the User as such). It never waits: while an action runs it gives the
// ref alone.
func (g *Gate) stepFor(ref string) *control.Step {
	if ref == "" {
		return nil
	}
	st := &control.Step{Ref: ref}
	select {
	case g.sem <- struct{}{}:
		if t, reason := g.refs.lookup(ref); reason == "" {
			st.Kind, st.Text = string(t.kind), t.name
		}
		<-g.sem
	default:
	}
	return st
}

// withoutQuery drops a URL's query and fragment for the audit log: a form
// the User sent with GET puts what they typed there.
func withoutQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u.String()
}
