package browser

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/debugger"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/cdproto/webmcp"

	cdpconn "github.com/poppy-browser/poppy-browser/browser/internal/cdp"
)

// tgt is one attached page or out-of-process iframe: its session, the frames
// it renders, their execution contexts, and the scripts installed in it.
type tgt struct {
	b      *Browser
	s      *cdpconn.Session
	parent *cdpconn.Session
	info   *target.Info
	page   *Page // the top-level page this target belongs to

	mu         sync.Mutex
	frames     map[cdp.FrameID]*frameInfo
	mainID     cdp.FrameID
	contexts   map[cdp.FrameID]map[string]execContext // frame -> world ("" main) -> context
	scripts    map[string][]*scriptVersion            // by key: the installs not yet removed, newest last
	docs       map[cdp.LoaderID]int64                 // status of document responses by loader
	loaded     map[cdp.LoaderID]bool                  // documents whose load event fired
	navigating bool                                   // the top frame has a navigation requested that has neither committed nor stopped
	busy       bool                                   // a main-thread command got no answer in time; cleared by the next answer
	crashed    bool                                   // its renderer crashed (a navigation of the page recovers it)
	installMu  sync.Mutex                             // orders the sending of script installs (see installScript)
	holdMu     sync.Mutex                             // orders the debugger's pause and resume (see Frame.Hold)
	held       *targetHold                            // the pause its Holds share; guarded by holdMu
	paused     bool                                   // the debugger reports it paused; guarded by holdMu
	armed      bool                                   // the debugger takes pauses (does not skip them); guarded by holdMu
	arming     chan struct{}                          // closed once the renderer has run the command that armed it; nil when none is pending; guarded by holdMu
	changed    chan struct{}                          // closed and replaced on every frame or context change
	ready      chan struct{}                          // closed once configure has run (see Browser.attached)
	webmcp     webmcpState                            // the page's WebMCP tools (see webmcp.go)
}

type execContext struct {
	id     runtime.ExecutionContextID
	unique string
	origin string // the document's security origin as the browser reports it ("null" when opaque)
}

type frameInfo struct {
	id, parent cdp.FrameID
	url        string
	loader     cdp.LoaderID
	failed     string // the URL that could not be loaded, when the frame shows the browser's error page
	// seq is when this target first heard of the frame, in the browser's
	// order: a parent hears of its iframes as it parses them, so siblings
	// ordered by seq are in document order (frame ids are random).
	seq uint64
}

func newTgt(b *Browser, s, parent *cdpconn.Session, info *target.Info) *tgt {
	t := &tgt{b: b, s: s, parent: parent, info: info,
		frames:   map[cdp.FrameID]*frameInfo{},
		contexts: map[cdp.FrameID]map[string]execContext{},
		scripts:  map[string][]*scriptVersion{},
		docs:     map[cdp.LoaderID]int64{},
		loaded:   map[cdp.LoaderID]bool{},
		changed:  make(chan struct{}),
		ready:    make(chan struct{}),
	}
	t.watchLog()
	t.trackWebMCP()
	track(t, runtime.ExecutionContextCreated, t.contextCreatedLocked)
	t.s.On(runtime.ExecutionContextCreated.Method, func(jsonv2.Value) {
		// Not on the read loop: a send may wait for the pipe.
		t.b.wg.Go(t.rearm)
	})
	track(t, runtime.ExecutionContextDestroyed, t.contextDestroyedLocked)
	track(t, runtime.ExecutionContextsCleared, func(runtime.EventExecutionContextsCleared) {
		t.contexts = map[cdp.FrameID]map[string]execContext{}
	})
	track(t, page.FrameAttached, func(ev page.EventFrameAttached) {
		if t.frames[ev.FrameID] == nil {
			t.frames[ev.FrameID] = &frameInfo{id: ev.FrameID, parent: ev.ParentFrameID, seq: t.b.frameSeq.Add(1)}
		}
	})
	track(t, page.FrameNavigated, func(ev page.EventFrameNavigated) {
		if ev.Frame == nil {
			return
		}
		if ev.Frame.ID == t.mainID || ev.Frame.ParentID == "" {
			t.navigating = false
			t.crashed = false
		}
		t.removeChildrenLocked(ev.Frame.ID)
		t.setFrameLocked(ev.Frame)
		t.dropWebMCPLocked(ev.Frame.ID)
	})
	track(t, page.NavigatedWithinDocument, func(ev page.EventNavigatedWithinDocument) {
		if f := t.frames[ev.FrameID]; f != nil {
			f.url = ev.URL
		}
	})
	track(t, page.FrameDetached, func(ev page.EventFrameDetached) {
		if ev.Reason != page.FrameDetachedReasonSwap {
			delete(t.frames, ev.FrameID)
			delete(t.contexts, ev.FrameID)
		}
	})
	// A navigation the page requests (a link, a form) is known before the
	// input that caused it is acknowledged, so Settle can wait for it.
	markNav := func(frame cdp.FrameID, on bool) {
		if frame == t.mainID {
			t.navigating = on
		}
	}
	track(t, page.FrameRequestedNavigation, func(ev page.EventFrameRequestedNavigation) { markNav(ev.FrameID, true) })
	track(t, page.FrameStartedNavigating, func(ev page.EventFrameStartedNavigating) { markNav(ev.FrameID, true) })
	track(t, page.FrameStoppedLoading, func(ev page.EventFrameStoppedLoading) { markNav(ev.FrameID, false) })
	track(t, page.LifecycleEvent, func(ev page.EventLifecycleEvent) {
		if ev.Name == "load" {
			t.loaded[ev.LoaderID] = true
		}
	})
	track(t, inspector.TargetCrashed, func(inspector.EventTargetCrashed) { t.crashedLocked() })
	track(t, network.ResponseReceived, func(ev network.EventResponseReceived) {
		if ev.Type == network.ResourceTypeDocument && ev.Response != nil {
			t.docs[ev.LoaderID] = ev.Response.Status
		}
	})
	return t
}

// track runs apply for every event e of the target's session, under the
// target's lock, then wakes everything waiting on a change (see context,
// WaitLoaded, Settle). apply runs on the read loop: it must not block.
func track[E any](t *tgt, e cdp.Event[E], apply func(E)) {
	t.s.On(e.Method, func(raw jsonv2.Value) {
		ev, ok := cdpconn.Decode[E](raw)
		if !ok {
			return
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		apply(ev)
		t.notifyLocked()
	})
}

func (t *tgt) notifyLocked() {
	close(t.changed)
	t.changed = make(chan struct{})
}

// removeChildrenLocked forgets the frames below id: a frame that navigates
// drops its old document's children, and CDP does not always say so.
func (t *tgt) removeChildrenLocked(id cdp.FrameID) {
	for cid, fi := range t.frames {
		if fi.parent == id {
			t.removeChildrenLocked(cid)
			delete(t.frames, cid)
			delete(t.contexts, cid)
		}
	}
}

func (t *tgt) setFrameLocked(f *cdp.Frame) {
	fi := t.frames[f.ID]
	if fi == nil {
		fi = &frameInfo{id: f.ID, seq: t.b.frameSeq.Add(1)}
		t.frames[f.ID] = fi
	}
	fi.parent = f.ParentID
	fi.url = f.URL + f.URLFragment
	fi.loader = f.LoaderID
	fi.failed = f.UnreachableURL
	if f.ParentID == "" || cdp.FrameID(t.s.TargetID()) == f.ID {
		t.mainID = f.ID
	}
}

type auxData struct {
	FrameID   cdp.FrameID `json:"frameId"`
	IsDefault bool        `json:"isDefault"`
	Type      string      `json:"type"`
}

func (t *tgt) contextCreatedLocked(ev runtime.EventExecutionContextCreated) {
	if ev.Context == nil {
		return
	}
	aux, ok := cdpconn.Decode[auxData](ev.Context.AuxData)
	if !ok || aux.FrameID == "" {
		return
	}
	world := ""
	if !aux.IsDefault {
		if aux.Type != "isolated" {
			return
		}
		world = ev.Context.Name
	}
	if t.contexts[aux.FrameID] == nil {
		t.contexts[aux.FrameID] = map[string]execContext{}
	}
	t.contexts[aux.FrameID][world] = execContext{id: ev.Context.ID, unique: ev.Context.UniqueID, origin: ev.Context.Origin}
}

func (t *tgt) contextDestroyedLocked(ev runtime.EventExecutionContextDestroyed) {
	for f, worlds := range t.contexts {
		for w, c := range worlds {
			if c.unique == ev.ExecutionContextUniqueID {
				delete(worlds, w)
			}
		}
		if len(worlds) == 0 {
			delete(t.contexts, f)
		}
	}
}

// configure runs while the target waits for the debugger: every script and
// the auto-attach of its children go in before its first document runs.
// The commands are sent back to back, the last one resuming the target,
// and only then are the replies awaited: a target in a fresh renderer may
// not answer anything (Page.enable included) until it runs, so waiting for
// a reply before resuming would leave it paused for good.
func (t *tgt) configure(ctx context.Context) error {
	s := t.s
	s.On(target.AttachedToTarget.Method, func(raw jsonv2.Value) { t.b.attached(s, raw) })
	s.On(target.DetachedFromTarget.Method, func(raw jsonv2.Value) { t.b.detached(raw) })
	t.watchPauses()
	t.installMu.Lock()
	defer t.installMu.Unlock()
	t.b.mu.Lock()
	scripts := t.b.scriptsForLocked(t)
	keys := t.b.inOrderLocked(scripts)
	t.b.mu.Unlock()

	type step struct {
		method string
		params any
		res    any
		key    string // the script this step installs
	}
	steps := []step{
		{method: page.CommandEnable, params: page.EnableParams{}},
		{method: page.CommandSetLifecycleEventsEnabled, params: page.SetLifecycleEventsEnabledParams{Enabled: true}},
		{method: network.CommandEnable, params: network.EnableParams{}},
	}
	if t.info.Type == "page" {
		steps = append(steps,
			step{method: inspector.CommandEnable},
			step{method: page.CommandSetInterceptFileChooserDialog, params: page.SetInterceptFileChooserDialogParams{Enabled: true}},
			// The page's WebMCP tools, before its first document runs;
			// a browser without the domain answers with an error, kept
			// for the WebMCP calls alone (see webmcp.go).
			step{method: webmcp.CommandEnable})
	}
	for _, key := range keys {
		sc := scripts[key]
		steps = append(steps, step{method: page.CommandAddScriptToEvaluateOnNewDocument, key: key,
			params: page.AddScriptToEvaluateOnNewDocumentParams{Source: sc.Source, WorldName: sc.World, RunImmediately: ptr(sc.World != "")},
			res:    new(page.AddScriptToEvaluateOnNewDocumentResult)})
	}
	tree := new(page.GetFrameTreeResult)
	steps = append(steps,
		step{method: target.CommandSetAutoAttach, params: target.SetAutoAttachParams{AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: ptr(true)}},
		step{method: runtime.CommandEnable},
		// On from the start, every pause skipped (see Frame.Hold): only
		// then can Frame.Hold pause a busy page (Debugger.enable waits
		// behind its tasks), and no debugger statement of a page stops.
		step{method: debugger.CommandEnable, params: debugger.EnableParams{}},
		step{method: debugger.CommandSetSkipAllPauses, params: debugger.SetSkipAllPausesParams{Skip: true}},
		step{method: debugger.CommandSetBreakpointsActive, params: debugger.SetBreakpointsActiveParams{Active: false}},
		step{method: page.CommandGetFrameTree, res: tree},
		step{method: runtime.CommandRunIfWaitingForDebugger})
	type sent struct {
		id int64
		ch chan *cdproto.Message
	}
	all := make([]sent, 0, len(steps))
	for _, st := range steps {
		id, ch, err := s.Send(ctx, st.method, st.params)
		if err != nil {
			for _, p := range all {
				s.Forget(p.id)
			}
			return err
		}
		all = append(all, sent{id, ch})
	}
	var errs []error
	for i, st := range steps {
		err := s.Wait(ctx, all[i].id, all[i].ch, st.method, st.res)
		if st.method == webmcp.CommandEnable {
			t.setWebMCP(err)
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if st.key != "" {
			v := &scriptVersion{id: st.res.(*page.AddScriptToEvaluateOnNewDocumentResult).Identifier, known: make(chan struct{})}
			close(v.known)
			t.mu.Lock()
			t.scripts[st.key] = append(t.scripts[st.key], v)
			t.mu.Unlock()
		}
	}
	if tree.FrameTree != nil {
		t.mu.Lock()
		// Events that came after the tree was taken are newer than it:
		// the tree only fills in frames not heard of yet.
		var walk func(ft *page.FrameTree)
		walk = func(ft *page.FrameTree) {
			if t.frames[ft.Frame.ID] == nil || t.frames[ft.Frame.ID].loader == "" {
				t.setFrameLocked(ft.Frame)
			}
			for _, c := range ft.ChildFrames {
				walk(c)
			}
		}
		walk(tree.FrameTree)
		if t.mainID == "" {
			t.mainID = tree.FrameTree.Frame.ID
		}
		t.notifyLocked()
		t.mu.Unlock()
	}
	return errors.Join(errs...)
}

// context returns the execution context of world in frame, waiting for it to
// be created (a new document creates its worlds as it starts).
func (t *tgt) context(ctx context.Context, frame cdp.FrameID, world string) (runtime.ExecutionContextID, error) {
	c, err := t.contextOf(ctx, frame, world)
	return c.id, err
}

// contextOf is context with the context's origin: both belong to one
// document, so a call made with the id runs in a document of that origin or
// fails.
func (t *tgt) contextOf(ctx context.Context, frame cdp.FrameID, world string) (execContext, error) {
	var busy <-chan time.Time
	for {
		t.mu.Lock()
		c, ok := t.contexts[frame][world]
		_, frameKnown := t.frames[frame]
		ch := t.changed
		t.mu.Unlock()
		interrupt := t.interrupt()
		if err := t.blocked(mainThread); err != nil {
			return execContext{}, err
		}
		if ok {
			return c, nil
		}
		if !frameKnown {
			return execContext{}, fmt.Errorf("%w: frame %s", ErrFrameGone, frame)
		}
		if busy == nil {
			timer := time.NewTimer(t.b.busyTimeout())
			defer timer.Stop()
			busy = timer.C
		}
		select {
		case <-ctx.Done():
			return execContext{}, fmt.Errorf("waiting for a script context in frame %s: %w", frame, ctx.Err())
		case <-busy:
			t.mu.Lock()
			t.busy = true
			t.mu.Unlock()
			return execContext{}, fmt.Errorf("waiting for a script context in frame %s: %w", frame, ErrPageBusy)
		case <-t.s.Done():
			return execContext{}, t.goneErr()
		case <-interrupt:
		case <-ch:
		}
	}
}

// crashedLocked forgets what the crashed renderer held: its script contexts
// and the frames below the top one. The top frame stays, to be navigated.
func (t *tgt) crashedLocked() {
	t.crashed = true
	t.contexts = map[cdp.FrameID]map[string]execContext{}
	t.removeChildrenLocked(t.mainID)
	t.navigating = false
}
