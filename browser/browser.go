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
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/cdproto/target"
)

// Options configure [Launch]. The zero value launches a headless Chromium
// found on PATH that adds no header to any request.
type Options struct {
	ExecPath string // Chromium binary; "" finds one on PATH
	CDPURL   string // attach to this browser (ws:// or http:// DevTools URL) instead of launching
	// AttachTimeout bounds attaching to CDPURL. 0 means DefaultAttachTimeout.
	AttachTimeout time.Duration
	Headful       bool     // show a window
	Args          []string // extra command-line flags, e.g. --host-resolver-rules
	UserDataDir   string   // "" uses a fresh temporary profile removed by Close
	Width         int      // viewport width in CSS pixels; 0 means 1280
	Height        int      // viewport height; 0 means 800

	// CompanyHost reports whether a request host (no port) belongs to the
	// Company. Requests to such hosts get CompanyHeaders; no other request
	// does. nil means no host is the Company's.
	CompanyHost    func(host string) bool
	CompanyHeaders map[string]string
	// CompanyURL, when set, decides instead of CompanyHost whether a
	// request URL gets CompanyHeaders (the caller's policy on schemes).
	CompanyURL func(url string) bool

	Logger *slog.Logger // nil discards
}

func (o *Options) width() int {
	if o.Width > 0 {
		return o.Width
	}
	return 1280
}

func (o *Options) height() int {
	if o.Height > 0 {
		return o.Height
	}
	return 800
}

// UtilityWorld is an isolated world present in every frame, where the
// browser's own reads run without the page's globals.
const UtilityWorld = "poppy-browser"

// Script is JavaScript run at the start of every new document of every
// frame, before the page's own scripts.
type Script struct {
	World  string // "" is the page's main world; otherwise an isolated world of that name
	Source string
}

// Browser is a Chromium driven over CDP, with every page, popup and
// out-of-process iframe attached and configured before it runs.
// Its methods are safe for concurrent use. Close frees the process.
type Browser struct {
	opts Options
	log  *slog.Logger
	conn *conn
	proc *process // nil when attached

	getterCalls atomic.Uint64 // numbers CallPrivate's object groups

	ctx    context.Context // lives until Close; owns the read loop and event goroutines
	cancel context.CancelFunc

	mu      sync.Mutex
	scripts map[string]Script // by key
	// ctxScripts are scripts of one browser context, by context and key
	// (see Context.SetScript).
	ctxScripts map[cdp.BrowserContextID]map[string]Script
	targets    map[target.SessionID]*tgt // attached page and frame targets
	pages      map[target.ID]*Page       // top-level pages
	pageSubs   []chan *Page              // listeners for new pages

	observers    map[uint64]RequestObserver // by key, see ObserveRequests
	nextObserver uint64

	interceptMu  sync.Mutex  // guards intercepting
	intercepting bool        // request interception (Fetch) is on
	win          windowInput // whether the windows' own input reaches pages
	logs         logWatchers // see Page.WatchLog
}

// Launch starts Chromium (or attaches to opts.CDPURL) and attaches to every
// target it has or creates. Cancelling ctx only bounds the start; Close ends
// the browser.
func Launch(ctx context.Context, opts *Options) (*Browser, error) {
	if opts == nil {
		opts = &Options{}
	}
	b := &Browser{
		opts:    *opts,
		log:     opts.Logger,
		scripts: map[string]Script{},
		targets: map[target.SessionID]*tgt{},
		pages:   map[target.ID]*Page{},
	}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	b.scripts["poppy-browser/utility"] = Script{World: UtilityWorld, Source: "// reads the page for poppy-browser"}
	b.ctx, b.cancel = context.WithCancel(context.WithoutCancel(ctx))
	var tr interface {
		Close() error
	}
	if opts.CDPURL != "" {
		t, err := dial(ctx, opts.CDPURL, b.attachTimeout())
		if err != nil {
			b.cancel()
			return nil, err
		}
		b.conn, tr = newConn(t), t
	} else {
		t, p, err := startProcess(ctx, opts)
		if err != nil {
			b.cancel()
			return nil, err
		}
		b.conn, b.proc, tr = newConn(t), p, t
	}
	_ = tr
	go b.conn.readLoop(b.ctx)

	sctx := ctx
	if opts.CDPURL != "" {
		// A browser that accepts the connection but never answers must not
		// hold up the start.
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, b.attachTimeout())
		defer cancel()
	}
	if err := b.setup(sctx); err != nil {
		if opts.CDPURL != "" && sctx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("attaching to %s: no answer within %s", redactURL(opts.CDPURL), b.attachTimeout())
		}
		last := ""
		if b.proc != nil {
			last = b.proc.lastLine()
		}
		b.Close()
		if last != "" {
			return nil, fmt.Errorf("starting chromium: %w (chromium said: %s)", err, last)
		}
		return nil, fmt.Errorf("starting chromium: %w", err)
	}
	return b, nil
}

func (b *Browser) attachTimeout() time.Duration {
	if b.opts.AttachTimeout > 0 {
		return b.opts.AttachTimeout
	}
	return DefaultAttachTimeout
}

func (b *Browser) setup(ctx context.Context) error {
	root := b.conn.root()
	root.on(target.AttachedToTarget.Method, func(raw jsonv2.Value) { b.attached(root, raw) })
	root.on(target.DetachedFromTarget.Method, func(raw jsonv2.Value) { b.detached(raw) })
	if err := b.enableHeaders(ctx); err != nil {
		return err
	}
	_, err := cdp.Call(ctx, root, target.SetAutoAttach, target.SetAutoAttachParams{
		AutoAttach:             true,
		WaitForDebuggerOnStart: true,
		Flatten:                ptr(true),
	})
	return err
}

// Close ends the browser (or detaches from an attached one) and frees its
// temporary profile.
func (b *Browser) Close() error {
	if b.proc != nil {
		ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
		_ = b.conn.root().Call(ctx, "Browser.close", nil, nil)
		cancel()
	}
	b.cancel()
	_ = b.conn.tr.Close()
	b.proc.stop()
	return nil
}

// Crashed is closed when the connection to the browser is lost.
func (b *Browser) Crashed() <-chan struct{} { return b.conn.done }

// SetScript installs s under key in every current target and every target
// created later, replacing the script that had that key. Documents that are
// already loaded keep what they ran; replacing affects new documents only.
func (b *Browser) SetScript(ctx context.Context, key string, s Script) error {
	b.mu.Lock()
	b.scripts[key] = s
	ts := b.targetList()
	b.mu.Unlock()
	var errs []error
	for _, t := range ts {
		if err := t.installScript(ctx, key, s); err != nil && !isGone(err) {
			errs = append(errs, err)
		}
	}
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
	bc, err := cdp.Call(ctx, b.conn.root(), target.CreateBrowserContext, target.CreateBrowserContextParams{DisposeOnDetach: ptr(true)})
	if err != nil {
		return nil, fmt.Errorf("opening a page: %w", err)
	}
	ch := b.subscribePages()
	defer b.unsubscribePages(ch)
	res, err := cdp.Call(ctx, b.conn.root(), target.CreateTarget, target.CreateTargetParams{
		URL:              "about:blank",
		BrowserContextID: bc.BrowserContextID,
		NewWindow:        ptr(true),
	})
	if err != nil {
		return nil, fmt.Errorf("opening a page: %w", err)
	}
	for {
		if p := b.pageByTarget(res.TargetID); p != nil {
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

// ClearCookies removes every cookie of every browser context.
func (b *Browser) ClearCookies(ctx context.Context) error {
	b.mu.Lock()
	var ctxs []cdp.BrowserContextID
	for _, p := range b.pages {
		ctxs = append(ctxs, p.browserContext)
	}
	b.mu.Unlock()
	if err := b.conn.root().Call(ctx, storage.CommandClearCookies, storage.ClearCookiesParams{}, nil); err != nil {
		return fmt.Errorf("clearing cookies: %w", err)
	}
	for _, id := range ctxs {
		if id == "" {
			continue
		}
		if err := b.conn.root().Call(ctx, storage.CommandClearCookies, storage.ClearCookiesParams{BrowserContextID: id}, nil); err != nil {
			return fmt.Errorf("clearing cookies: %w", err)
		}
	}
	return nil
}

// attached configures a newly attached target while it waits for us, then
// lets it run: scripts and child auto-attach are in place before any of the
// page's own code.
func (b *Browser) attached(parent *Session, raw jsonv2.Value) {
	ev, ok := decode[target.EventAttachedToTarget](raw)
	if !ok || ev.TargetInfo == nil {
		return
	}
	info := ev.TargetInfo
	s := b.conn.addSession(ev.SessionID, info.TargetID, info.Type)
	switch info.Type {
	case "page", "iframe":
	default:
		// Workers and the like: nothing of ours runs there; let them go.
		go func() {
			_ = s.Call(b.ctx, runtime.CommandRunIfWaitingForDebugger, nil, nil)
		}()
		return
	}
	t := newTgt(b, s, parent, info)
	b.mu.Lock()
	b.targets[s.id] = t
	var p *Page
	if info.Type == "page" {
		p = &Page{b: b, t: t, browserContext: info.BrowserContextID, opener: info.OpenerID}
		t.page = p
		b.pages[info.TargetID] = p
	} else if pt := b.targets[parent.id]; pt != nil {
		t.page = pt.page
	}
	b.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
		defer cancel()
		if err := t.configure(ctx); err != nil && !isGone(err) {
			b.log.Warn("configuring target", "type", info.Type, "err", err)
		}
		close(t.ready)
		if p != nil {
			b.newPageWindowInput(ctx, p)
			b.mu.Lock()
			subs := append([]chan *Page(nil), b.pageSubs...)
			b.mu.Unlock()
			for _, ch := range subs {
				select {
				case ch <- p:
				default:
				}
			}
		}
	}()
}

func (b *Browser) detached(raw jsonv2.Value) {
	ev, ok := decode[target.EventDetachedFromTarget](raw)
	if !ok {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.targets[ev.SessionID]
	delete(b.targets, ev.SessionID)
	if t != nil && t.page != nil && t.page.t == t {
		delete(b.pages, t.s.targetID)
	}
}

// targetsOfPage lists the targets (the page and its out-of-process iframes).
func (b *Browser) targetsOfPage(p *Page) []*tgt {
	b.mu.Lock()
	defer b.mu.Unlock()
	var ts []*tgt
	for _, t := range b.targets {
		if t.page == p {
			ts = append(ts, t)
		}
	}
	return ts
}

func (b *Browser) allTargets() []*tgt {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.targetList()
}

const cleanupTimeout = 2 * time.Second

func ptr[T any](v T) *T { return &v }

// isGone reports errors that mean the target or context went away, which is
// normal while pages navigate and close.
func isGone(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrClosed) || errors.Is(err, context.Canceled) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"No session with given id", "Session with given id not found", "Cannot find context", "Execution context was destroyed", "No frame", "Target closed", "not found"} {
		if containsFold(msg, s) {
			return true
		}
	}
	return false
}
