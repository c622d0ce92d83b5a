package gate

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// run is one action in progress; it holds the gate's lock.
type run struct {
	g     *Gate
	probe *Probe // set for a probe of package check (see Prober)
	s     Surface
	// What the run asks of the page beyond s, each the surface's own when
	// it has it (see Surface), else [lacking]'s.
	marks        Marks
	input        Input
	nav          Navigation
	tabs         TabSet
	pic          Picture
	ref          string // the ref the action named, for the audit line
	urlBefore    string // the page's URL when the run began, for the audit line
	epochAtStart uint64
	turn         uint64  // the control epoch when the run began (see marks.Action)
	frameList    []Frame // the page's frames, read once per run
	armed        []Frame // frames whose in-page guard the check armed
	// elsewhere are the other Company frames and tabs where the guard was
	// armed for the action (see armElsewhere); unguarded, the URLs of
	// those it could not arm.
	elsewhere []Frame
	unguarded []string
	// disarmed are the frames the run disarmed (or tried to), whose guard watches the
	// window after the action; late, what it stopped after the last one.
	disarmed []Frame
	late     *lateCatch
	// undisarmed are the frames no disarm reached (arming timed out in a
	// busy tab, or the disarm failed), read by the next action's readLate.
	undisarmed []Frame
	// newDocuments is the generation of the window in which new documents
	// arm the guard at their start that the run opened (newdocuments.go),
	// to close after; 0 if it opened none.
	newDocuments uint64
	// title is the top document's title read by the last disarm, valid
	// while the top document is titleDoc.
	title, titleDoc string
}

// step is what a plan's dispatch and done see of the run: the page, the
// element the ref named and the page's verdict on it.
type step struct {
	r        *run
	target   *target       // the ref's element; nil without a ref
	frame    Frame         // the target's frame
	verdict  marks.Verdict // the marks' verdict on the target
	selected []string      // what a select left selected
	note     string        // a message the dispatch leaves for done
	// dialogOpened is set when the action's input opened a dialog, which
	// stopped the input there: the action happened, up to the dialog.
	dialogOpened bool
	// sent lists the requests with a body the page's own scripts sent
	// during a tool's run (see sentWatcher).
	sent []browser.Request
}

func (st *step) done(ctx context.Context, msg string) Result {
	return Result{Outcome: spec.OutcomeDone, Message: msg, Page: st.r.page(ctx)}
}

// open finds the page and syncs the epoch, or reports that there is none.
func (r *run) open(ctx context.Context) *Result {
	r.use(r.g.current())
	if r.s == nil {
		return &Result{Outcome: spec.OutcomeFailed, Reason: spec.ReasonNoPage, Message: "There is no page open.",
			Page: PageState{Controller: r.g.ctl.Holder(), Epoch: r.g.refs.epoch}}
	}
	if r.s.Gone() {
		return &Result{Outcome: spec.OutcomeFailed, Reason: spec.ReasonBrowserGone,
			Message: "The browser is gone (it closed, crashed or the connection to it ended); nothing can run in it any more. Tell the User; poppy-browser must be restarted.",
			Page:    PageState{URL: r.s.URL(), Controller: r.g.ctl.Holder(), Epoch: r.g.refs.epoch}}
	}
	r.urlBefore = r.s.URL()
	r.turn = r.sync(ctx)
	r.epochAtStart = r.g.refs.epoch
	return nil
}

// target resolves the plan's ref in the current epoch, or refuses a key
// for the focus while the page has not been read since control came back.
func (r *run) target(ctx context.Context, p *plan, st *step) *Result {
	if p.ref == "" {
		if p.touch != nil && !p.focused {
			// The action touches an element and names none.
			res := r.failed(ctx, spec.ReasonBadArgument, "Give the ref of an element from the latest snapshot, such as e12.")
			return &res
		}
		if p.focused && p.touch.Kind == marks.ActionKey && r.g.ctl.Status().MustReobserve {
			res := r.denied(ctx, spec.ReasonStaleRef, "Control came back from the User; take a new snapshot with browser_snapshot before pressing keys.")
			return &res
		}
		return nil
	}
	if _, ok := parseRef(p.ref); !ok {
		res := r.failed(ctx, spec.ReasonBadArgument, fmt.Sprintf("%s is not a ref; refs look like e12: take a snapshot with browser_snapshot and use one of its refs.", quoteArg(p.ref)))
		return &res
	}
	r.ref = p.ref
	t, reason := r.g.refs.lookup(p.ref)
	switch reason {
	case spec.ReasonStaleRef:
		res := r.denied(ctx, reason, staleMessage(p.ref))
		return &res
	case spec.ReasonNoSuchRef:
		res := r.denied(ctx, reason, fmt.Sprintf("There is no element %q on this page; take a snapshot with browser_snapshot and use one of its refs.", p.ref))
		return &res
	}
	for _, f := range r.frames() {
		if f.ID == t.frame && f.URL == t.frameURL {
			st.target, st.frame = t, f
			return nil
		}
	}
	res := r.denied(ctx, spec.ReasonStaleRef, fmt.Sprintf("The frame of %s has changed since the snapshot; take a new snapshot with browser_snapshot and use its refs.", p.ref))
	return &res
}

// checkMarks asks the page, in one round trip per frame asked, what the
// plan would touch and which marks cover it, and refuses a marked step. It
// arms the in-page guard for input that changes the page.
func (r *run) checkMarks(ctx context.Context, p *plan, st *step) *Result {
	if p.touch == nil {
		return nil
	}
	a := *p.touch
	// A probe arms no guard: package check reports what the page does
	// when only the marks' verdict stands between the agent and a step.
	// A page's WebMCP tool runs with the guard armed even in a probe: its
	// script must never take a marked step for real.
	a.Arm, _ = r.arms(p, st)
	// A check that races the User's take arms no guard the take stood
	// down (a probe AsUser is given in the User's turn: its tool is
	// guarded all the same).
	a.Agent, a.Epoch = r.probe == nil || !r.probe.AsUser, r.turn
	if p.focused {
		for _, f := range r.frames() {
			v, err := r.marks.Check(ctx, f, a)
			if errors.Is(err, browser.ErrFrameGone) {
				continue
			}
			if f := browserFailure(err); f != nil {
				res := r.failed(ctx, f.reason, f.msg)
				return &res
			}
			if err != nil {
				res := r.failed(ctx, spec.ReasonPageError, "Could not read the page to check this action: "+err.Error())
				return &res
			}
			if a.Arm {
				r.armed = append(r.armed, f)
			}
			v.Stale = false // nothing in particular was named
			if res := r.verdict(ctx, f, "", v); res != nil {
				if a.Kind == marks.ActionWheel && res.Reason == spec.ReasonUserStep {
					res.Message = "Nothing was scrolled: the mouse wheel would change the focused field. Scroll with the ref of an element instead, or move focus with Tab. " + res.Message
				}
				return res
			}
		}
		return nil
	}
	a.ID = st.target.id
	v, err := r.marks.Check(ctx, st.frame, a)
	if err != nil {
		if errors.Is(err, browser.ErrFrameGone) {
			res := r.denied(ctx, spec.ReasonStaleRef, staleMessage(st.target.ref))
			return &res
		}
		if f := browserFailure(err); f != nil {
			res := r.failed(ctx, f.reason, f.msg)
			return &res
		}
		res := r.failed(ctx, spec.ReasonPageError, "Could not read the page to check this action: "+err.Error())
		return &res
	}
	if a.Arm {
		r.armed = append(r.armed, st.frame)
	}
	st.verdict = v
	if r.probe != nil && r.probe.AsUser {
		// The User's input: every step is theirs; only an element gone
		// has nothing to take it.
		if v.Stale {
			res := r.denied(ctx, spec.ReasonStaleRef, staleMessage(st.target.ref))
			return &res
		}
		return nil
	}
	res := r.verdict(ctx, st.frame, st.target.ref, v)
	if res != nil && p.touch.Key == "Enter" && a.Kind == marks.ActionType && res.Reason == spec.ReasonUserStep {
		res.Message = "Nothing was typed. " + res.Message
	}
	return res
}

// dispatch takes the input lease the plan asks for, runs its dispatch and
// reads what the in-page guard caught. A take by the User waits for input
// (milliseconds) and stops a navigation (see the package doc).
func (r *run) dispatch(ctx context.Context, p *plan, st *step) *Result {
	if p.lease == noLease {
		err := r.read(ctx, p, st)
		if f := browserFailure(err); f != nil {
			err = f
		}
		return r.outcome(ctx, err)
	}
	var (
		end   func()
		ok    bool
		taken atomic.Bool
	)
	dctx := ctx
	switch {
	case r.probe != nil && r.probe.AsUser && r.g.ctl.Holder() == spec.ControllerUser:
		// The User's input during the turn the Prober holds for them
		// (Prober.AsUser): the agent's lease is not theirs to take.
		end, ok = func() {}, true
	case p.lease == navigationLease:
		var cancel context.CancelFunc
		dctx, cancel = context.WithCancel(ctx)
		defer cancel()
		end, ok = r.g.ctl.BeginAgentNavigation(func() {
			taken.Store(true)
			cancel()
		})
	default:
		end, ok = r.g.ctl.BeginAgentAction()
	}
	if !ok {
		res := r.userHasControl()
		return &res
	}
	err := func() error {
		defer end()
		err := p.dispatch(dctx, st)
		if errors.Is(err, browser.ErrDialogOpen) {
			st.dialogOpened, err = true, nil
		}
		if err != nil && taken.Load() {
			// The User took control mid-load: stop the page, before the
			// lease ends, so that it does not load during their turn.
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			defer cancel()
			if serr := r.nav.StopLoading(sctx); serr != nil {
				r.g.log.Debug("stopping the agent's navigation failed", "err", serr)
			}
		}
		return err
	}()
	if err != nil && taken.Load() {
		res := r.userHasControl()
		return &res
	}
	caught, frame := r.disarm(ctx)
	if caught != nil && len(caught.Marks) > 0 {
		res := r.caught(ctx, st, frame, caught)
		return &res
	}
	return r.outcome(ctx, err)
}

// errUserHasControl is what a dispatch returns when the User's turn
// began before or during it.
var errUserHasControl = errors.New("the user holds control")

// read runs a plan that takes no lease (a snapshot, a screenshot, a wait,
// the tab list), so that a take does not wait for it: the holder is checked
// right before it reads the page, a change of control stops it, and what
// it read during the User's turn is thrown away (user_has_control).
func (r *run) read(ctx context.Context, p *plan, st *step) error {
	rctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	unwatch := control.Watch(rctx, r.g.ctl, func(e control.Event) {
		if e.Kind.ChangesHolder() {
			stop(errUserHasControl)
		}
	})
	defer unwatch()
	start := r.g.ctl.Status()
	if start.Controller == spec.ControllerUser {
		return errUserHasControl
	}
	err := p.dispatch(rctx, st)
	if end := r.g.ctl.Status(); end.Controller == spec.ControllerUser || end.Epoch != start.Epoch ||
		errors.Is(context.Cause(rctx), errUserHasControl) {
		return errUserHasControl
	}
	return err
}

// failure is an action's own result for a dispatch that did not succeed,
// or for arguments that are wrong.
type failure struct {
	reason spec.Reason
	msg    string
}

func fail(reason spec.Reason, msg string) *failure { return &failure{reason: reason, msg: msg} }

func (f *failure) Error() string { return string(f.reason) + ": " + f.msg }

// outcome turns what a dispatch returned into a result, or nil for success.
func (r *run) outcome(ctx context.Context, err error) *Result {
	var f *failure
	var res Result
	switch {
	case err == nil:
		return nil
	case errors.As(err, &f):
		res = r.failed(ctx, f.reason, f.msg)
	case errors.Is(err, errUserHasControl):
		res = r.userHasControl()
	case errors.Is(err, marks.ErrStale), errors.Is(err, browser.ErrFrameGone):
		res = r.denied(ctx, spec.ReasonStaleRef, staleMessage(r.ref))
	case browserFailure(err) != nil:
		f := browserFailure(err)
		res = r.failed(ctx, f.reason, f.msg)
	default:
		res = r.failed(ctx, spec.ReasonPageError, "The browser did not take the input: "+err.Error())
	}
	return &res
}

// userHasControl is the refusal for a User who took control during the run.
func (r *run) userHasControl() Result {
	res := r.g.userHasControl()
	r.g.pageNow(&res.Page)
	res.Page.Epoch = r.g.refs.epoch
	return res
}

// frames is the page's frame list, read once per run.
func (r *run) frames() []Frame {
	if r.frameList == nil {
		r.frameList = r.s.Frames()
	}
	return r.frameList
}

// refreshFrames reads the frame list again, for an action that spans page
// loads (a wait).
func (r *run) refreshFrames() []Frame {
	r.frameList = nil
	return r.frames()
}

// sync starts a new epoch when control came back from the User, the page
// changed, or the top frame holds a new document.
func (r *run) sync(ctx context.Context) uint64 {
	g := r.g
	st := g.ctl.Status()
	doc, err := r.s.Document(ctx)
	if err != nil {
		g.log.Debug("reading document identity failed", "err", err)
		doc = g.doc
	}
	if g.refs.epoch == 0 || st.Epoch != g.ctlEpoch || r.s != g.last || doc != g.doc {
		g.refs.bump()
		g.ctlEpoch, g.last, g.doc = st.Epoch, r.s, doc
		g.log.Debug("new epoch", "epoch", g.refs.epoch, "url", r.s.URL())
	}
	return st.Epoch
}

// page reports the page after the action, syncing the epoch first so that
// a navigation the action caused shows.
func (r *run) page(ctx context.Context) PageState {
	r.sync(ctx)
	title := r.title
	if r.titleDoc == "" || r.titleDoc != r.g.doc {
		title = r.s.Title(ctx)
	}
	// The title is the page's text: one safe line (clip, package pagetext).
	return PageState{URL: r.s.URL(), Title: clip(title), Controller: r.g.ctl.Holder(), Epoch: r.g.refs.epoch, Status: r.s.Status()}
}

func (r *run) denied(ctx context.Context, reason spec.Reason, msg string) Result {
	return Result{Outcome: spec.OutcomeDenied, Reason: reason, Message: msg, Page: r.page(ctx)}
}

func (r *run) failed(ctx context.Context, code spec.Reason, msg string) Result {
	switch {
	case errors.Is(context.Cause(ctx), errShuttingDown):
		// No page read: a page still loading can hold one for seconds,
		// and the process is on its way out.
		return Result{Outcome: spec.OutcomeFailed, Reason: spec.ReasonShuttingDown,
			Message: "The browser runtime is shutting down; the action was stopped.", Page: r.g.lastPage()}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		code = spec.ReasonTimeout
	}
	// The page may be gone with the context; report without waiting.
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	return Result{Outcome: spec.OutcomeFailed, Reason: code, Message: msg, Page: r.page(pctx)}
}

// disarm disarms the guard in every frame the run armed and returns the
// first thing it caught, with its frame. A frame gone since (a navigation
// the input started) caught nothing that took effect.
func (r *run) disarm(ctx context.Context) (*marks.Caught, Frame) {
	armed := append(r.armed, r.elsewhere...)
	r.armed, r.elsewhere = nil, nil
	// In parallel: one busy tab must not hold the others' disarm.
	ds := make([]marks.Disarmed, len(armed))
	errs := make([]error, len(armed))
	forEach(len(armed), func(i int) {
		dctx, cancel := context.WithTimeout(ctx, armWait)
		defer cancel()
		ds[i], errs[i] = r.marks.Disarm(dctx, armed[i])
	})
	var first *marks.Caught
	var frame Frame
	for i, f := range armed {
		d, err := ds[i], errs[i]
		// A frame whose disarm failed is watched after too: its document
		// may be one the action's navigation loaded, armed at its start
		// (openNewDocuments), which a disarm that raced it could not reach.
		r.disarmed = append(r.disarmed, f)
		if err != nil {
			r.g.log.Debug("disarming the guard failed", "err", err)
			r.undisarmed = append(r.undisarmed, f)
			continue
		}
		if len(r.frameList) > 0 && r.frameList[0].ID == f.ID {
			if doc, err := r.s.Document(ctx); err == nil {
				r.title, r.titleDoc = d.Title, doc
			}
		}
		if d.Caught != nil && first == nil {
			first, frame = d.Caught, f
		}
	}
	return first, frame
}
