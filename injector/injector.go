package injector

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/spec"
)

//go:embed js/poppy.js
var poppyJS string

// scriptKey names the injected script among the browser's scripts.
const scriptKey = "injector/navigator.poppy"

// Scope is where an injector works: the whole browser ([browser.Browser])
// or one browser context ([browser.Context]) when several Users share a
// Chromium, each with their own holder of control.
type Scope interface {
	SetScript(ctx context.Context, key string, s browser.Script) error
	Pages() []*browser.Page
}

// Options configure an [Injector].
type Options struct {
	Domain  string       // the Company's organization.domain; its hosts and subdomains get navigator.poppy
	Browser Scope        // where to inject: a *browser.Browser or a *browser.Context
	Logger  *slog.Logger // nil discards
	// Also, if set, runs in each Company frame right after it reads the
	// new value, within the same bounds (a busy renderer is held for
	// both): the Session stands the frame's in-page guard down on a take
	// there (package marks), before any input of the User's can reach it.
	// Its errors are logged, never the switch's, but a bound it reaches
	// is: the frame is held and both are done again. It must answer while
	// the renderer is held (browser.Frame.CallNow, whose answer does not
	// wait for the page's microtasks).
	Also func(ctx context.Context, f browser.Frame, c spec.Controller) error
}

// Injector provides navigator.poppy.controller in every Company frame.
// Its methods are safe for concurrent use; no lock of its own is held
// across a call to the browser. The work a switch leaves running (a frame
// set when its dialog closes or when its renderer's pause takes effect)
// runs in [Injector.Run], which its owner runs beside it.
type Injector struct {
	domain string
	b      Scope
	log    *slog.Logger
	also   func(ctx context.Context, f browser.Frame, c spec.Controller) error

	mu  sync.Mutex // guards cur, gen and the background state below
	cur spec.Controller
	gen uint64 // counts changes of cur, so a write that raced one is redone

	pending []func(ctx context.Context) // background work Run has not started yet
	wake    chan struct{}               // (buffered) tells Run there is pending work
	running bool                        // Run was called
	ended   bool                        // Run's ctx ended: no background work starts
}

// New returns an injector for the Company domain. Call Install before the
// first page loads, and run [Injector.Run] beside it.
func New(opts *Options) (*Injector, error) {
	domain, err := spec.NormalizeDevelopmentHost(opts.Domain)
	if err != nil {
		return nil, fmt.Errorf("injector: %w", err)
	}
	if opts.Browser == nil {
		return nil, errors.New("injector: no browser")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Injector{domain: domain, b: opts.Browser, log: log, also: opts.Also, cur: spec.ControllerAgent, wake: make(chan struct{}, 1)}, nil
}

// Run runs the work a switch leaves behind (a frame set once its dialog
// closes, a held renderer set once its pause takes effect) until ctx
// ends, then ends that work (a frame still held is released) and waits
// for it. Work handed over before Run starts waits for it; after ctx ends
// none starts. Its owner runs it beside the injector, once; it returns
// nil when ctx ends.
func (in *Injector) Run(ctx context.Context) error {
	in.mu.Lock()
	if in.running {
		in.mu.Unlock()
		return errors.New("running the injector: already running")
	}
	in.running = true
	in.mu.Unlock()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		in.mu.Lock()
		work := in.pending
		in.pending = nil
		ended := ctx.Err() != nil
		in.ended = ended // under mu: once set, background starts nothing
		in.mu.Unlock()
		// Work queued as ctx ended still runs, with ctx ended: it releases
		// what it holds.
		for _, fn := range work {
			wg.Go(func() { fn(ctx) })
		}
		if ended {
			return nil
		}
		select {
		case <-ctx.Done():
		case <-in.wake:
		}
	}
}

// current returns the value every Company frame must read, and its change count.
func (in *Injector) current() (spec.Controller, uint64) {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.cur, in.gen
}

// Install registers navigator.poppy, reading the current value (at first
// "agent"), for every new document.
func (in *Injector) Install(ctx context.Context) error {
	c, _ := in.current()
	return in.install(ctx, c)
}

// install registers the script with c as the initial value of new documents.
// An init script takes no call arguments, so the values are JSON-encoded into
// a direct call, never spliced in as code. The script runs at document start
// only (see browser.SetScript), before any script of the page.
func (in *Injector) install(ctx context.Context, c spec.Controller) error {
	var args []string
	for _, v := range []string{in.domain, string(c)} {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		args = append(args, string(b))
	}
	src := poppyJS + "(" + strings.Join(args, ", ") + ");"
	if err := in.b.SetScript(ctx, scriptKey, browser.Script{Source: src, Holds: in.isCompany}); err != nil {
		return fmt.Errorf("installing navigator.poppy: %w", err)
	}
	return nil
}

// runtimeField is the private field of navigator.poppy that holds the
// runtime's handle on the value (see js/poppy.js).
const runtimeField = "#runtime"

// isCompany reports whether a document's origin is the Company's and one
// the browser declares itself to: an https origin whose host is
// organization.domain or a subdomain, or a cleartext one on a loopback host
// (a Company's development server), as the Poppy-Extensions header goes
// (spec.MayDeclare). Opaque origins ("null": sandboxed and data: frames) are
// nobody's; about:blank and about:srcdoc documents carry their parent's.
func (in *Injector) isCompany(origin string) bool {
	return spec.MayDeclare(origin) && spec.MatchesURL(in.domain, origin)
}

// The bounds of a switch of control (see SwitchBound).
const (
	// directBound is how long a frame's renderer has to answer the
	// update; one that does not is busy, and its scripts are held.
	directBound = 800 * time.Millisecond
	// pauseBound is how long a held renderer has to stop its script; one
	// that has not (busy outside script) stops before its next statement,
	// and is updated then, after Set returned.
	pauseBound = 800 * time.Millisecond
	// writeBound bounds the update of a held frame.
	writeBound = 800 * time.Millisecond
)

// SwitchBound bounds [Injector.Set] whatever the pages do: the script
// install (at most 300 ms a target, in parallel), then per frame, in
// parallel, the update (directBound), the hold of a busy renderer
// (pauseBound) and the update while it is held (writeBound).
const SwitchBound = 3 * time.Second

// Set changes the controller in every Company frame of every page and
// returns, within [SwitchBound], once no Company frame can read another
// value: each reads c, or its renderer is held (runs no script) until it
// does. Documents created from now on start with c. Frames of any other
// origin are not touched: nothing is evaluated in them, so they can
// neither learn of the change nor fail it. It is the frames step of the
// Session's hand-over (package supervisor), which control runs.
func (in *Injector) Set(ctx context.Context, c spec.Controller) error {
	for {
		_, gen := in.current()
		if err := in.install(ctx, c); err != nil {
			return err
		}
		in.mu.Lock()
		if in.gen == gen { // no other Set installed meanwhile
			in.cur, in.gen = c, gen+1
			in.mu.Unlock()
			break
		}
		in.mu.Unlock()
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for _, p := range in.b.Pages() {
		for _, f := range p.Frames() {
			wg.Go(func() {
				err := in.setFrame(ctx, f)
				switch {
				case errors.Is(err, browser.ErrNotAllowed), errors.Is(err, browser.ErrNoObject), errors.Is(err, browser.ErrFrameGone),
					errors.Is(err, browser.ErrTabClosed), errors.Is(err, browser.ErrCrashed):
					return // not a Company frame, a Company document without navigator.poppy, or gone (a crashed tab's next document starts with c)
				case errors.Is(err, browser.ErrDialogOpen):
					// A dialog holds the tab: no script of the page runs
					// until it is answered, so nothing reads the old value;
					// the frame is set the moment the dialog closes.
					in.log.Info("a frame held by a dialog is set when the dialog closes", "holder", string(c))
					in.background(func(ctx context.Context) { in.setAfterDialog(ctx, p, f) })
				case err != nil:
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("setting navigator.poppy.controller to %s: %w", c, err)
	}
	in.log.Debug("controller set", "holder", string(c))
	return nil
}

// background hands fn to Run, which runs it with its ctx and waits for
// it. Once Run's ctx has ended it runs nothing and reports false.
func (in *Injector) background(fn func(ctx context.Context)) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.ended {
		return false
	}
	in.pending = append(in.pending, fn)
	select {
	case in.wake <- struct{}{}:
	default: // Run is woken already
	}
	return true
}

// write sets the current value in frame f, checks that it reads it, and
// runs Also there. A change of control during the call is written again,
// so f ends with the latest value whichever write lands last.
func (in *Injector) write(ctx context.Context, f browser.Frame) error {
	for {
		c, gen := in.current()
		var got string
		if err := f.CallPrivate(ctx, in.isCompany, "navigator.poppy", runtimeField, &got, string(c)); err != nil {
			return err
		}
		if got != string(c) {
			return fmt.Errorf("a frame of %s still reads %q", in.domain, got)
		}
		if in.also != nil {
			if err := in.also(ctx, f, c); err != nil {
				if ctx.Err() != nil {
					return err
				}
				in.log.Warn("a frame's step after the switch failed", "holder", string(c), "err", err)
			}
		}
		if _, now := in.current(); now == gen {
			return nil
		}
	}
}

// setFrame sets the current value in frame f within the bounds of a
// switch. A renderer that does not answer in time (a frame of the page,
// of the Company's or of a third party's sharing its main thread, keeps
// it busy) is held: its scripts stop at their next statement, as at a
// breakpoint, and the frame is set while none of them can read the old
// value. Nothing of the page's is ended; to the page it looks like a long
// task. A renderer that does not stop within pauseBound (busy outside
// script) keeps the pause request: it is set, then released, the moment
// it stops, by background work.
func (in *Injector) setFrame(ctx context.Context, f browser.Frame) error {
	dctx, cancel := context.WithTimeout(ctx, directBound)
	err := in.write(dctx, f)
	cancel()
	if ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	h, herr := f.Hold(ctx)
	if herr != nil {
		return errors.Join(err, herr)
	}
	timer := time.NewTimer(pauseBound)
	defer timer.Stop()
	select {
	case <-h.Paused():
		err := in.writeWithin(ctx, f, writeBound)
		if ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
			in.release(h)
			return err
		}
		// Slow to answer even while held (a loaded machine): it stays
		// held, running no script, until the value lands.
		in.log.Warn("a held frame is slow to answer; it stays held until it is set")
		if !in.background(func(ctx context.Context) { in.finishHeld(ctx, f, h) }) {
			in.release(h) // closed: nothing is left held
		}
		return nil
	case <-timer.C:
		in.log.Warn("a busy renderer is held until it stops, then set")
		if !in.background(func(ctx context.Context) {
			select {
			case <-h.Paused():
				in.finishHeld(ctx, f, h)
			case <-ctx.Done():
				in.release(h)
			}
		}) {
			in.release(h) // closed: nothing is left held
		}
		return nil
	case <-ctx.Done():
		in.release(h)
		return ctx.Err()
	}
}

// writeWithin writes the current value into f within d.
func (in *Injector) writeWithin(ctx context.Context, f browser.Frame, d time.Duration) error {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return in.write(wctx, f)
}

// heldRetry bounds each later attempt to set a held frame.
const heldRetry = 5 * time.Second

// finishHeld sets f while its renderer is held, trying again while the
// renderer is slow to answer, then releases it. Until then no script of
// that renderer runs; the end of Run releases it too.
func (in *Injector) finishHeld(ctx context.Context, f browser.Frame, h *browser.Hold) {
	defer in.release(h)
	for ctx.Err() == nil {
		err := in.writeWithin(ctx, f, heldRetry)
		switch {
		case err == nil, gone(err), ctx.Err() != nil:
			return
		case !errors.Is(err, context.DeadlineExceeded):
			in.log.Warn("setting a held frame failed", "err", err)
			return
		}
	}
}

func (in *Injector) release(h *browser.Hold) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := h.Release(ctx); err != nil && !gone(err) {
		in.log.Warn("releasing a held renderer failed", "err", err)
	}
}

// gone reports an error of a frame or tab that went away.
func gone(err error) bool {
	return errors.Is(err, browser.ErrFrameGone) || errors.Is(err, browser.ErrTabClosed) ||
		errors.Is(err, browser.ErrNoObject) || errors.Is(err, browser.ErrCrashed) || errors.Is(err, browser.ErrBrowserGone)
}

// setAfterDialog sets the current value in frame f of page p once no
// dialog holds the tab, unless the page or its document went away (a new
// document starts with the current value) or the injector closes.
func (in *Injector) setAfterDialog(ctx context.Context, p *browser.Page, f browser.Frame) {
	tabs := p.Tabs()
	if tabs == nil {
		return
	}
	for {
		changed := tabs.Changed()
		if _, open := p.Dialog(); open {
			select {
			case <-changed:
				continue
			case <-p.Done():
				return
			case <-ctx.Done():
				return
			}
		}
		err := in.setFrame(ctx, f)
		if !errors.Is(err, browser.ErrDialogOpen) {
			if err != nil && !gone(err) && ctx.Err() == nil {
				in.log.Warn("setting a frame after its dialog closed failed", "err", err)
			}
			return
		}
		// Another dialog opened meanwhile: wait for it too.
	}
}

// Controller is the value new documents start with.
func (in *Injector) Controller() spec.Controller {
	c, _ := in.current()
	return c
}

// Reads returns how often the page's scripts in frame read
// navigator.poppy.controller since its document started. It fails with an
// error matching [browser.ErrNoObject] in a frame that has no
// navigator.poppy, and [browser.ErrNotAllowed] in a frame that is not the
// Company's (nothing is evaluated there).
func (in *Injector) Reads(ctx context.Context, f browser.Frame) (int, error) {
	var n int
	if err := f.CallPrivate(ctx, in.isCompany, "navigator.poppy", runtimeField, &n, "reads"); err != nil {
		return 0, fmt.Errorf("counting reads of navigator.poppy.controller: %w", err)
	}
	return n, nil
}
