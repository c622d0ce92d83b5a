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
}

// Injector provides navigator.poppy.controller in every Company frame.
// Its methods are safe for concurrent use.
type Injector struct {
	domain string
	b      Scope
	log    *slog.Logger

	mu  sync.Mutex // one change at a time
	cur spec.Controller
}

// New returns an injector for the Company domain. Call Install before the
// first page loads.
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
	return &Injector{domain: domain, b: opts.Browser, log: log, cur: spec.ControllerAgent}, nil
}

// Install registers navigator.poppy, reading "agent", for every new document.
func (in *Injector) Install(ctx context.Context) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.install(ctx, in.cur)
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
	if err := in.b.SetScript(ctx, scriptKey, browser.Script{Source: src}); err != nil {
		return fmt.Errorf("installing navigator.poppy: %w", err)
	}
	return nil
}

// runtimeField is the private field of navigator.poppy that holds the
// runtime's handle on the value (see js/poppy.js).
const runtimeField = "#runtime"

// isCompany reports whether a document's origin is the Company's: an https
// or http origin whose host is organization.domain or a subdomain. Opaque
// origins ("null": sandboxed and data: frames) are nobody's; about:blank and
// about:srcdoc documents carry their parent's origin.
func (in *Injector) isCompany(origin string) bool {
	if !strings.HasPrefix(origin, "https://") && !strings.HasPrefix(origin, "http://") {
		return false
	}
	return spec.MatchesURL(in.domain, origin)
}

// Set changes the controller in every Company frame of every page and
// returns once each reads c. Documents created from now on start with c.
// Frames of any other origin are not touched: nothing is evaluated in them,
// so they can neither learn of the change nor fail it. It is the Apply hook
// of package control.
func (in *Injector) Set(ctx context.Context, c spec.Controller) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := in.install(ctx, c); err != nil {
		return err
	}
	in.cur = c
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for _, p := range in.b.Pages() {
		for _, f := range p.Frames() {
			wg.Go(func() {
				var got string
				err := in.setBusy(ctx, f, c, &got)
				switch {
				case errors.Is(err, browser.ErrNotAllowed), errors.Is(err, browser.ErrNoObject), errors.Is(err, browser.ErrFrameGone),
					errors.Is(err, browser.ErrTabClosed), errors.Is(err, browser.ErrCrashed):
					return // not a Company frame, a Company document without navigator.poppy, or gone (a crashed tab's next document starts with c)
				case errors.Is(err, browser.ErrDialogOpen):
					// A dialog holds the tab: no script of the page runs
					// until it is answered, so nothing reads the old value;
					// the frame is set the moment the dialog closes.
					in.log.Info("a frame held by a dialog is set when the dialog closes", "holder", string(c))
					go in.setAfterDialog(p, f, c)
				case err != nil:
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				case got != string(c):
					mu.Lock()
					errs = append(errs, fmt.Errorf("a frame of %s still reads %q", in.domain, got))
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

// frameBound bounds the update of one frame in a switch: a frame that does
// not answer by then is busy with a script of the page's.
const frameBound = 2 * time.Second

// setBusy sets c in frame f. A frame whose renderer is busy (an endless
// script) has that script stopped, as a browser's "page unresponsive" button
// does, and is set then: the User's take never waits for a page, and no
// script of the page is left running that could read the old value.
func (in *Injector) setBusy(ctx context.Context, f browser.Frame, c spec.Controller, got *string) error {
	fctx, cancel := context.WithTimeout(ctx, frameBound)
	defer cancel()
	err := f.CallPrivate(fctx, in.isCompany, "navigator.poppy", runtimeField, got, string(c))
	if ctx.Err() != nil || !(errors.Is(err, browser.ErrPageBusy) || errors.Is(err, context.DeadlineExceeded)) {
		return err
	}
	in.log.Warn("a busy frame's script is stopped to switch control", "holder", string(c))
	if serr := f.StopScript(ctx); serr != nil {
		return errors.Join(err, serr)
	}
	fctx, cancel = context.WithTimeout(ctx, frameBound)
	defer cancel()
	return f.CallPrivate(fctx, in.isCompany, "navigator.poppy", runtimeField, got, string(c))
}

// setAfterDialog sets c in frame f of page p once no dialog holds the tab,
// unless control has changed again (that change sets the frame itself) or
// the page or its document went away (a new document starts with the
// current value).
func (in *Injector) setAfterDialog(p *browser.Page, f browser.Frame, c spec.Controller) {
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
			}
		}
		if err := in.setFrame(f, c); !errors.Is(err, browser.ErrDialogOpen) {
			if err != nil && !errors.Is(err, browser.ErrFrameGone) && !errors.Is(err, browser.ErrTabClosed) {
				in.log.Warn("setting a frame after its dialog closed failed", "holder", string(c), "err", err)
			}
			return
		}
		// Another dialog opened meanwhile: wait for it too.
	}
}

// setFrame sets c in one frame, unless control has changed since.
func (in *Injector) setFrame(f browser.Frame, c spec.Controller) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.cur != c {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got string
	return f.CallPrivate(ctx, in.isCompany, "navigator.poppy", runtimeField, &got, string(c))
}

// Controller is the value new documents start with.
func (in *Injector) Controller() spec.Controller {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.cur
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
