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
	domain, err := spec.NormalizeDomain(opts.Domain)
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
				err := f.CallPrivate(ctx, in.isCompany, "navigator.poppy", runtimeField, &got, string(c))
				switch {
				case errors.Is(err, browser.ErrNotAllowed), errors.Is(err, browser.ErrNoObject), errors.Is(err, browser.ErrFrameGone):
					return // not a Company frame, a Company document without navigator.poppy, or gone
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
