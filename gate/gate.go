package gate

import (
	"context"
	"fmt"

	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// Options configures a [Gate]. Control is required.
type Options struct {
	// Page returns the page the agent acts on, or nil when there is none.
	Page func() *browser.Page
	// Surface, for tests, replaces Page: it returns the surface the gate
	// acts on (a fake page), or nil when there is none. A change of the
	// value it returns is a change of page.
	Surface func() Surface
	// Control says who holds the browser. The gate reads it and takes its
	// input lease; it never changes the holder.
	Control *control.Control
	// Audit receives one line per decision. Nil records nothing.
	Audit *audit.Log
	// CompanyHost reports whether a host is the Company's, to label page
	// content in snapshots. Nil means no host is.
	CompanyHost func(host string) bool
	// CompanyDomain is the Company's organization.domain: its new documents
	// arm the guard at their start in an action's window (newdocuments.go).
	CompanyDomain string
	// Timeout bounds one action (a navigation included). 0 means 60 s.
	Timeout time.Duration
	// Logger receives debug logs. Nil discards.
	Logger *slog.Logger
	// DownloadsForAgent is a folder where a download an agent's action
	// starts is saved for the agent (--downloads-for-agent; files.go).
	// "" (the default) refuses it: downloads are the User's, in their turn.
	DownloadsForAgent string
}

// Gate is the one path from the agent's model to the page. Every agent
// action passes [Gate.Do]. Create it with [New]; it is safe for
// concurrent use and runs one action at a time.
type Gate struct {
	ctl     *control.Control
	audit   *audit.Log
	company func(host string) bool
	timeout time.Duration
	log     *slog.Logger
	by      string // who acts, on every audit line: "" for the agent, "check" for a Prober's gate
	saveTo  string // Options.DownloadsForAgent
	current func() Surface
	page    func() *browser.Page // Options.Page, safe to call at any time; nil with a Surface

	newDocs newDocumentsWindow // see newdocuments.go

	sem    chan struct{} // held while an action runs; guards the fields below
	queued atomic.Int32  // actions waiting for sem, for tests that queue some

	// closed is closed by Close: the action in flight stops, and every
	// later one fails with shutting_down. The gate runs nothing in the
	// background, so it needs no context of its own.
	closed    chan struct{}
	closeOnce sync.Once

	refs     *refTable
	after    afterAction // the last action whose guard may still watch (after.go)
	look     look        // the page as the model last read it
	ctlEpoch uint64
	doc      string  // the top document's identity at the last sync
	last     Surface // the page at the last sync

	// seen is the page state at the end of the last run, readable without
	// sem for refusals that must not wait.
	seen atomic.Pointer[PageState]
}

// New returns a gate over the page opts.Page (or opts.Surface) returns.
// A Control has one gate (its refs, epoch and input lease have one
// keeper): New panics if opts.Control already has one, as building a
// second is a wiring mistake (supervisor.Session builds the one gate).
func New(opts *Options) *Gate {
	if opts.Control != nil {
		if err := opts.Control.Bind("gate"); err != nil {
			panic("gate.New: " + err.Error())
		}
	}
	g := &Gate{
		ctl:     opts.Control,
		audit:   opts.Audit,
		company: opts.CompanyHost,
		timeout: opts.Timeout,
		log:     opts.Logger,
		saveTo:  opts.DownloadsForAgent,
		current: opts.Surface,
		page:    opts.Page,
		sem:     make(chan struct{}, 1),
		refs:    newRefTable(),
		closed:  make(chan struct{}),
		newDocs: newDocumentsWindow{domain: opts.CompanyDomain},
	}
	if g.current == nil {
		g.current = pageSurfaces(opts.Page)
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
func pageSurfaces(page func() *browser.Page) func() Surface {
	var last *pageSurface // only used under the gate's sem
	return func() Surface {
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

// Do runs one action through the one sequence every action passes (see
// the package doc): control, ref, marks, then lease, dispatch, settle and
// record. The action's plan says what each step works on; no action can
// skip a step. Denials and failures are results, never panics or errors.
func (g *Gate) Do(ctx context.Context, a Action) Result { return g.do(ctx, a, nil) }

// do is Do, or with pr a probe of package check (see [Prober]): its
// target is named by frame and local id instead of a ref, and the
// differences are the Prober's, each marked here.
func (g *Gate) do(ctx context.Context, a Action, pr *Probe) Result {
	if a == nil {
		return Result{Outcome: spec.OutcomeFailed, Reason: spec.ReasonBadArgument, Message: "No action."}
	}
	// The record comes first: no agent action runs that the audit log
	// cannot hold (a full disk, an I/O error); the User's control does
	// not depend on it.
	if err := g.audit.Check(); err != nil {
		return Result{Outcome: spec.OutcomeFailed, Reason: spec.ReasonAuditUnavailable, Page: g.lastPage(),
			Message: "The audit log cannot be written (the disk may be full), so no browser action runs until it can. Tell the User; they can still take control."}
	}
	// 1. Refuse at once while the User holds control, without waiting for
	// a running action.
	if res := g.refusal(pr, false); res != nil {
		return g.recorded(a, *res)
	}
	if res := g.acquire(ctx); res != nil {
		return g.recorded(a, *res)
	}
	defer func() { <-g.sem }()
	// 1, again: the User may have taken control while the action waited
	// for its slot.
	if res := g.refusal(pr, true); res != nil {
		return g.recorded(a, *res)
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	defer g.whenClosed(func() { stop(errShuttingDown) })()

	r := &run{g: g, probe: pr}
	var (
		st    *step
		prior *Activity // what the tab had seen before the action; nil before it was read
	)
	res := func() Result {
		if res := r.open(ctx); res != nil {
			return *res
		}
		if pr != nil {
			// A probe names its element by frame and local id: it gets a
			// ref of this epoch, and passes as an action with that ref.
			var res *Result
			if a, res = r.probeTarget(ctx, pr, a); res != nil {
				return *res
			}
		}
		p := a.plan()
		if p.bad != nil {
			return r.failed(ctx, p.bad.reason, p.bad.msg)
		}
		// A dialog holds the tab: nothing but an answer (or a tab
		// change) can run.
		if !p.dialogOK {
			if res := r.dialogOpen(ctx); res != nil {
				return *res
			}
		}
		seen := r.tabs.Activity()
		prior = &seen
		st = &step{r: r}
		// 2. Refuse a stale ref (stale_ref, no_such_ref; bad_argument for
		// no ref at all).
		if res := r.target(ctx, &p, st); res != nil {
			return *res
		}
		// 3. Ask the page what the action touches, in one round trip, and
		// refuse a marked step (user_step); arms the in-page guard.
		// Beside it, in parallel: the guard armed in every other Company
		// frame and tab the action's script may reach, and what the guard
		// stopped after the last action returned.
		var (
			beside    sync.WaitGroup
			elsewhere []Frame
			unguarded []string
		)
		r.frames() // read before the goroutines share it
		if arm, checked := r.arms(&p, st); arm {
			beside.Go(func() { elsewhere, unguarded = r.armElsewhere(ctx, *p.touch, checked) })
			beside.Go(func() { r.openNewDocuments(ctx) })
		}
		beside.Go(func() { r.readLate(ctx) })
		res := r.checkMarks(ctx, &p, st)
		beside.Wait()
		r.elsewhere, r.unguarded = elsewhere, unguarded
		if res != nil {
			return *res
		}
		// 4. Take the input lease and dispatch (a read takes none: it is
		// checked against the User's turn instead), then what the guard
		// caught; settle; record (below).
		if res := r.dispatch(ctx, &p, st); res != nil {
			return *res
		}
		if p.settle && pr == nil { // a probe watches what its input caused itself
			r.nav.Settle(ctx)
		}
		return p.done(ctx, st)
	}()
	res = g.unlessStopped(ctx, res)
	if len(r.armed)+len(r.elsewhere) > 0 {
		// An action that stopped between its check and its input: disarm
		// now, so the guard can never meet the User's input later.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		r.disarm(dctx)
		cancel()
	}
	if r.s != nil {
		if st != nil && st.dialogOpened && res.Outcome == spec.OutcomeDone {
			res.Message = "The page opened a dialog during the action, which stopped there; answer it with browser_handle_dialog before anything else (see dialog)."
		}
		r.tabState(ctx, &res, prior)
		res.Message += r.unguardedNote()
		r.reportLate(&res)
	}
	r.closeNewDocuments()
	r.keepAfter(a.Tool(), prior)
	seen := res.Page
	g.seen.Store(&seen)
	// 4, the end: record the decision.
	g.record(a, r.ref, r.urlBefore, res)
	return res
}

// refusal is the answer to an action that must not start: the gate is
// closed, or the User holds control (and the action is not a probe of the
// User's input, pr.AsUser). held says the caller holds the action's slot.
func (g *Gate) refusal(pr *Probe, held bool) *Result {
	var res Result
	switch {
	case g.isClosed():
		res = g.shuttingDown()
	case g.ctl.Holder() == spec.ControllerUser && (pr == nil || !pr.AsUser):
		res = g.userHasControl()
		if held {
			g.pageNow(&res.Page)
		} else {
			// The slot is free while the User holds control (every
			// action is refused); if it is not, the page last seen does.
			select {
			case g.sem <- struct{}{}:
				g.pageNow(&res.Page)
				<-g.sem
			default:
			}
		}
	default:
		return nil
	}
	return &res
}

// acquire waits for the action's slot (one action runs at a time), or
// answers why it did not get it.
func (g *Gate) acquire(ctx context.Context) *Result {
	g.queued.Add(1)
	defer g.queued.Add(-1)
	var res Result
	select {
	case g.sem <- struct{}{}:
		return nil
	case <-g.closed:
		res = g.shuttingDown()
	case <-ctx.Done():
		res = Result{Outcome: spec.OutcomeFailed, Reason: spec.ReasonTimeout, Message: "Another browser action is still running; try again.",
			Page: g.lastPage()}
	}
	return &res
}

// recorded records an answer given before the action ran, and returns it.
func (g *Gate) recorded(a Action, res Result) Result {
	g.record(a, "", res.Page.URL, res)
	return res
}

// Close stops the gate: the action in flight is stopped and answers
// failed (shutting_down), as does every later one. It waits, within ctx,
// for the action in flight to return, and its window for new documents.
func (g *Gate) Close(ctx context.Context) error {
	g.closeOnce.Do(func() { close(g.closed) })
	select {
	case g.sem <- struct{}{}:
		<-g.sem
		return g.newDocs.wait(ctx)
	case <-ctx.Done():
		return fmt.Errorf("closing the gate: %w", ctx.Err())
	}
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

// titleWait bounds the read of the page's title for a refusal, which must
// not wait on a busy page (the title the browser last reported stands in).
const titleWait = time.Second

// pageNow brings p up to the page as it is now, which the User may have
// moved on from in their turn: its url, title and status, read without
// running an action. The caller holds the action's slot.
func (g *Gate) pageNow(p *PageState) {
	s := g.current()
	if s == nil || s.Gone() {
		return
	}
	u := s.URL()
	if u == p.URL {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), titleWait)
	defer cancel()
	p.URL, p.Title, p.Status = u, clip(s.Title(ctx)), s.Status()
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

// RefStatus says whether ref names an element of the current epoch: ""
// when it does (or while an action runs, when it cannot be told without
// waiting), else stale_ref or no_such_ref; bad_argument when ref is not a
// ref at all ("", "x12").
func (g *Gate) RefStatus(ref string) spec.Reason {
	if _, ok := parseRef(ref); !ok {
		return spec.ReasonBadArgument
	}
	select {
	case g.sem <- struct{}{}:
		defer func() { <-g.sem }()
		_, reason := g.refs.lookup(ref)
		return reason
	default:
		return ""
	}
}

// StepFor describes the marked step ref names, for an offer to the User.
// Text is the element's name as the page gives it (Company content, shown
// to the User as such). It never waits: while an action runs it gives the
// ref alone.
func (g *Gate) StepFor(ref string) *control.Step {
	if ref == "" {
		return nil
	}
	st := &control.Step{Ref: ref}
	select {
	case g.sem <- struct{}{}:
		if t, reason := g.refs.lookup(ref); reason == "" {
			st.Kind, st.Text = string(t.kind), t.name
			if t.box != nil {
				st.Box = &control.Box{X: t.box.X, Y: t.box.Y, Width: t.box.Width, Height: t.box.Height}
			}
		}
		<-g.sem
	default:
	}
	return st
}
