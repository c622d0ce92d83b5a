package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"

	cdpconn "github.com/poppy-browser/poppy-browser/browser/internal/cdp"
	"github.com/poppy-browser/poppy-browser/browser/internal/chromium"
)

// UtilityWorld is an isolated world present in every frame, where the
// browser's own reads run without the page's globals.
const UtilityWorld = "poppy-browser"

// Script is JavaScript run at the start of every new document of every
// frame, before the page's own scripts.
type Script struct {
	World  string // "" is the page's main world; otherwise an isolated world of that name
	Source string
	// Holds, when set, names the documents (by their origin, "null"
	// when opaque) that [Frame.Hold] must be able to stop at once, even
	// in an endless script: their renderers keep the debugger's pause
	// armed (see Frame.Hold). Every other renderer skips every pause, so
	// no page there can time or see the debugger.
	Holds func(origin string) bool
	// StartOnly, for an isolated-world script, runs it at the start of new
	// documents only, not at once in the documents already loaded too: a
	// script whose work is for a document's start, reinstalled often,
	// then costs its renderers no evaluation in every loaded frame.
	StartOnly bool
}

// Browser is a Chromium driven over CDP, with every page, popup and
// out-of-process iframe attached and configured before it runs.
// Its methods are safe for concurrent use. Close frees the process.
type Browser struct {
	opts Options
	log  *slog.Logger
	conn *cdpconn.Conn
	proc *chromium.Process // nil when attached

	getterCalls atomic.Uint64 // numbers CallPrivate's object groups
	pauses      atomic.Int64  // Debugger.paused events of every target, for tests (browsertest.DebuggerPauses)
	frameSeq    atomic.Uint64 // the order frames were first heard of, for Page.Frames

	ctx    context.Context // lives until Close; owns the read loop and event goroutines
	cancel context.CancelFunc
	wg     sync.WaitGroup // the goroutines of the browser: Close waits for them

	// closing is set first thing in Close, before the browser is asked to
	// close and detaches its tabs: from then on the browser is gone.
	closing   atomic.Bool
	closeOnce sync.Once
	closeErr  error

	mu      sync.Mutex
	scripts map[string]Script // by key
	// ctxScripts are scripts of one browser context, by context and key
	// (see Context.SetScript).
	ctxScripts map[cdp.BrowserContextID]map[string]Script
	// scriptOrder is when each key was last set (a count): a new target
	// gets its scripts in that order, as a current one has them (a
	// replaced script is added after the others), so a script may build
	// on one set before it in the same world.
	scriptOrder map[string]uint64
	scriptsSet  uint64
	targets     map[target.SessionID]*tgt // attached page and frame targets
	pages       map[target.ID]*Page       // top-level pages
	pageSubs    []chan *Page              // listeners for new pages
	groups      map[cdp.BrowserContextID]*Tabs

	observers    map[uint64]RequestObserver // by key, see ObserveRequests
	nextObserver uint64

	win  windowInput // whether the windows' own input reaches pages
	emu  emulated    // the User's device, while pages are shown on it
	logs logWatchers // see Page.watchLog
}

// Launch starts Chromium (or attaches to opts.CDPURL) and attaches to every
// target it has or creates. Cancelling ctx only bounds the start; Close ends
// the browser.
//
// Its errors name a DevTools URL without its query or user info (a pool's
// token travels there), and hold no error that would show them.
func Launch(ctx context.Context, opts *Options) (*Browser, error) {
	if opts == nil {
		opts = &Options{}
	}
	b, err := launch(ctx, opts)
	if err != nil && opts.CDPURL != "" {
		return nil, cdpconn.Redact(err) // the one place errors carrying the URL leave
	}
	return b, err
}

func launch(ctx context.Context, opts *Options) (*Browser, error) {
	b := &Browser{
		opts:    *opts,
		log:     opts.Logger,
		scripts: map[string]Script{},
		targets: map[target.SessionID]*tgt{},
		pages:   map[target.ID]*Page{},
		groups:  map[cdp.BrowserContextID]*Tabs{},
	}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	b.scripts["poppy-browser/utility"] = Script{World: UtilityWorld, Source: "// reads the page for poppy-browser"}
	b.ctx, b.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if opts.CDPURL != "" {
		timeout := opts.ConnectTimeout
		if timeout <= 0 {
			timeout = 10 * time.Second
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		t, err := cdpconn.Dial(cctx, opts.CDPURL)
		if err != nil {
			b.cancel()
			if cctx.Err() != nil && ctx.Err() == nil {
				if cdpconn.Accepts(ctx, opts.CDPURL) {
					// It takes connections but answered none in time: a pool
					// whose browsers are all busy holds the newcomer in its
					// queue.
					return nil, fmt.Errorf("attaching to %s: the pool queued the connection (its browsers are all busy) and did not answer in %s", opts.CDPURL, timeout)
				}
				return nil, fmt.Errorf("attaching to %s: no answer in %s", opts.CDPURL, timeout)
			}
			return nil, err
		}
		b.conn = cdpconn.NewConn(t)
		ctx = cctx
	} else {
		t, p, err := chromium.Start(chromium.Config{
			Path: opts.ExecPath, UserDataDir: opts.UserDataDir, Headful: opts.Headful,
			Width: opts.width(), Height: opts.height(), Args: opts.Args,
		})
		if err != nil {
			b.cancel()
			return nil, err
		}
		b.conn, b.proc = cdpconn.NewConn(t), p
	}
	b.wg.Go(func() { b.conn.ReadLoop(b.ctx) })
	if b.proc != nil {
		// A crash cleans up as Close does: the helpers killed as a group,
		// then the profile (cookies) removed; Close reports the outcome.
		b.wg.Go(func() {
			select {
			case <-b.conn.Done():
				_ = b.proc.Stop()
			case <-b.ctx.Done():
			}
		})
	}

	if err := b.setup(ctx); err != nil {
		last := ""
		if b.proc != nil {
			last = b.proc.LastLine()
		}
		b.Close()
		if opts.CDPURL != "" {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("attaching to %s: the browser did not answer: %w", opts.CDPURL, err)
			}
			return nil, fmt.Errorf("attaching to %s: %w", opts.CDPURL, err)
		}
		if last != "" {
			return nil, fmt.Errorf("starting chromium: %w (chromium said: %s)", err, last)
		}
		return nil, fmt.Errorf("starting chromium: %w", err)
	}
	return b, nil
}

func (b *Browser) setup(ctx context.Context) error {
	root := b.conn.Root()
	root.On(target.AttachedToTarget.Method, func(raw jsonv2.Value) { b.attached(root, raw) })
	root.On(target.DetachedFromTarget.Method, func(raw jsonv2.Value) { b.detached(raw) })
	b.watchTargets(root)
	b.watchFaults(root)
	if err := b.intercept(ctx); err != nil {
		return err
	}
	if err := b.applyDownloads(ctx, ""); err != nil {
		return err
	}
	if err := root.Call(ctx, target.CommandSetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true}, nil); err != nil {
		return err
	}
	_, err := cdp.Call(ctx, root, target.SetAutoAttach, target.SetAutoAttachParams{
		AutoAttach:             true,
		WaitForDebuggerOnStart: true,
		Flatten:                ptr(true),
	})
	return err
}

// Close ends the browser (or detaches from an attached one), frees its
// temporary profile and waits for the goroutines of the Browser to end. It
// reports what could not be cleaned up. Calling it again returns the same.
func (b *Browser) Close() error {
	b.closing.Store(true)
	b.closeOnce.Do(func() {
		var errs []error
		// A profile of the caller's own is closed gracefully, so Chromium
		// writes it out; a temporary one is removed anyway, and a kill
		// ends the browser at once (a signal must not wait on a busy one).
		if b.proc != nil && b.proc.ProfileDir() == "" && b.conn.Err() == nil {
			ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
			_ = b.conn.Root().Call(ctx, "Browser.close", nil, nil)
			cancel()
		}
		b.cancel()
		if err := b.conn.Close(); err != nil && b.conn.Err() == nil {
			errs = append(errs, fmt.Errorf("closing the browser connection: %w", err))
		}
		b.wg.Wait()
		if err := b.proc.Stop(); err != nil {
			errs = append(errs, err)
		}
		b.closeErr = errors.Join(errs...)
	})
	return b.closeErr
}

// Crashed is closed when the connection to the browser is lost.
func (b *Browser) Crashed() <-chan struct{} { return b.conn.Done() }

// Gone reports why the browser can no longer be used (wrapping
// [ErrBrowserGone]), or nil while it can.
func (b *Browser) Gone() error {
	if err := b.conn.Err(); err != nil {
		return err
	}
	if b.closing.Load() {
		return ErrBrowserGone
	}
	return nil
}

// SetScript installs s under key in every current target and every target
// created later, replacing the script that had that key. Documents that are
// already loaded keep what they ran; replacing affects new documents only.
func (b *Browser) SetScript(ctx context.Context, key string, s Script) error {
	if err := b.Gone(); err != nil {
		return fmt.Errorf("installing script %s: %w", key, err)
	}
	b.mu.Lock()
	holds := s.Holds != nil || b.scripts[key].Holds != nil
	b.scripts[key] = s
	b.setOrderLocked(key)
	ts := b.targetList()
	b.mu.Unlock()
	return installIn(ctx, ts, key, holds)
}

// installIn installs the script under key in every target of ts, in
// parallel and each bounded: one busy tab must not hold up the others.
// holds says the script, or the one it replaces, names documents to hold
// (Script.Holds): only then can the targets' debugger arming change.
func installIn(ctx context.Context, ts []*tgt, key string, holds bool) error {
	var wg sync.WaitGroup
	errs := make([]error, len(ts))
	for i, t := range ts {
		wg.Go(func() {
			if err := t.installScript(ctx, key); err != nil && !isGone(err) {
				errs[i] = err
			}
			if holds {
				t.rearm()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (b *Browser) targetList() []*tgt {
	ts := make([]*tgt, 0, len(b.targets))
	for _, t := range b.targets {
		ts = append(ts, t)
	}
	return ts
}

// NewPage opens a tab in a fresh browser context (its own cookies and
// storage) and returns it once attached.
func (b *Browser) NewPage(ctx context.Context) (*Page, error) {
	bc, err := cdp.Call(ctx, b.conn.Root(), target.CreateBrowserContext, target.CreateBrowserContextParams{DisposeOnDetach: ptr(true)})
	if err != nil {
		return nil, fmt.Errorf("opening a page: %w", err)
	}
	ch := b.subscribePages()
	defer b.unsubscribePages(ch)
	if err := b.applyDownloads(ctx, bc.BrowserContextID); err != nil {
		return nil, fmt.Errorf("opening a page: %w", err)
	}
	res, err := cdp.Call(ctx, b.conn.Root(), target.CreateTarget, target.CreateTargetParams{
		URL:              "about:blank",
		BrowserContextID: bc.BrowserContextID,
		NewWindow:        ptr(true),
	})
	if err != nil {
		return nil, fmt.Errorf("opening a page: %w", err)
	}
	for {
		if p := b.pageByTarget(res.TargetID); p != nil {
			if err := p.waitReady(ctx); err != nil {
				return nil, fmt.Errorf("opening a page: %w", err)
			}
			return p, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("opening a page: %w", ctx.Err())
		case <-ch:
		}
	}
}

// Pages are the open top-level pages, popups included.
func (b *Browser) Pages() []*Page {
	b.mu.Lock()
	defer b.mu.Unlock()
	ps := make([]*Page, 0, len(b.pages))
	for _, p := range b.pages {
		ps = append(ps, p)
	}
	return ps
}

func (b *Browser) pageByTarget(id target.ID) *Page {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pages[id]
}

func (b *Browser) subscribePages() chan *Page {
	ch := make(chan *Page, 16)
	b.mu.Lock()
	b.pageSubs = append(b.pageSubs, ch)
	b.mu.Unlock()
	return ch
}

func (b *Browser) unsubscribePages(ch chan *Page) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, c := range b.pageSubs {
		if c == ch {
			b.pageSubs = append(b.pageSubs[:i], b.pageSubs[i+1:]...)
			return
		}
	}
}

const cleanupTimeout = 2 * time.Second

func ptr[T any](v T) *T { return &v }

// FindChromium returns the path of a Chromium or Chrome binary on PATH, or
// an error that names the command that installs one.
func FindChromium() (string, error) { return chromium.Find() }
