package browser

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
)

// tgt is one attached page or out-of-process iframe: its session, the frames
// it renders, their execution contexts, and the scripts installed in it.
type tgt struct {
	b      *Browser
	s      *Session
	parent *Session
	info   *target.Info
	page   *Page // the top-level page this target belongs to

	mu         sync.Mutex
	frames     map[cdp.FrameID]*frameInfo
	mainID     cdp.FrameID
	contexts   map[cdp.FrameID]map[string]execContext // frame -> world ("" main) -> context
	scriptID   map[string]page.ScriptIdentifier       // by key
	docs       map[cdp.LoaderID]int64                 // status of document responses by loader
	loaded     map[cdp.LoaderID]bool                  // documents whose load event fired
	navigating bool                                   // the top frame has a navigation requested that has neither committed nor stopped
	installMu  sync.Mutex                             // one script install at a time (see installScript)
	changed    chan struct{}                          // closed and replaced on every frame or context change
	ready      chan struct{}                          // closed once configure has run (see Browser.attached)
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
}

func newTgt(b *Browser, s, parent *Session, info *target.Info) *tgt {
	t := &tgt{b: b, s: s, parent: parent, info: info,
		frames:   map[cdp.FrameID]*frameInfo{},
		contexts: map[cdp.FrameID]map[string]execContext{},
		scriptID: map[string]page.ScriptIdentifier{},
		docs:     map[cdp.LoaderID]int64{},
		loaded:   map[cdp.LoaderID]bool{},
		changed:  make(chan struct{}),
		ready:    make(chan struct{}),
	}
	t.watchLog()
	track(t, runtime.ExecutionContextCreated, t.contextCreatedLocked)
	track(t, runtime.ExecutionContextDestroyed, t.contextDestroyedLocked)
	track(t, runtime.ExecutionContextsCleared, func(runtime.EventExecutionContextsCleared) {
		t.contexts = map[cdp.FrameID]map[string]execContext{}
	})
	track(t, page.FrameAttached, func(ev page.EventFrameAttached) {
		if t.frames[ev.FrameID] == nil {
			t.frames[ev.FrameID] = &frameInfo{id: ev.FrameID, parent: ev.ParentFrameID}
		}
	})
	track(t, page.FrameNavigated, func(ev page.EventFrameNavigated) {
		if ev.Frame == nil {
			return
		}
		if ev.Frame.ID == t.mainID {
			t.navigating = false
		}
		t.removeChildrenLocked(ev.Frame.ID)
		t.setFrameLocked(ev.Frame)
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
	t.s.on(e.Method, func(raw jsonv2.Value) {
		ev, ok := decode[E](raw)
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
		fi = &frameInfo{id: f.ID}
		t.frames[f.ID] = fi
	}
	fi.parent = f.ParentID
	fi.url = f.URL + f.URLFragment
	fi.loader = f.LoaderID
	if f.ParentID == "" || cdp.FrameID(t.s.targetID) == f.ID {
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
	aux, ok := decode[auxData](ev.Context.AuxData)
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
func (t *tgt) configure(ctx context.Context) error {
	s := t.s
	steps := []struct {
		method string
		params any
	}{
		{page.CommandEnable, page.EnableParams{}},
		{page.CommandSetLifecycleEventsEnabled, page.SetLifecycleEventsEnabledParams{Enabled: true}},
		{network.CommandEnable, network.EnableParams{}},
	}
	for _, st := range steps {
		if err := s.Call(ctx, st.method, st.params, nil); err != nil {
			return err
		}
	}
	t.b.mu.Lock()
	scripts := t.b.scriptsForLocked(t)
	t.b.mu.Unlock()
	for key, sc := range scripts {
		if err := t.installScript(ctx, key, sc); err != nil {
			return err
		}
	}
	if err := s.Call(ctx, target.CommandSetAutoAttach, target.SetAutoAttachParams{
		AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: ptr(true),
	}, nil); err != nil {
		return err
	}
	s.on(target.AttachedToTarget.Method, func(raw jsonv2.Value) { t.b.attached(s, raw) })
	s.on(target.DetachedFromTarget.Method, func(raw jsonv2.Value) { t.b.detached(raw) })
	if err := s.Call(ctx, runtime.CommandEnable, nil, nil); err != nil {
		return err
	}
	tree, err := cdp.Call(ctx, s, page.GetFrameTree, cdp.Empty{})
	if err == nil && tree.FrameTree != nil {
		t.mu.Lock()
		var walk func(ft *page.FrameTree)
		walk = func(ft *page.FrameTree) {
			t.setFrameLocked(ft.Frame)
			for _, c := range ft.ChildFrames {
				walk(c)
			}
		}
		walk(tree.FrameTree)
		t.mainID = tree.FrameTree.Frame.ID
		t.notifyLocked()
		t.mu.Unlock()
	}
	return s.Call(ctx, runtime.CommandRunIfWaitingForDebugger, nil, nil)
}

// installScript installs the browser's current script under key. Installs
// on one target are serialized and always take the newest script, so a
// target that attaches while a script is being replaced ends with the new
// one. Only isolated-world scripts also run at once in loaded documents:
// running a main-world script after the page's own scripts would hand its
// arguments to whatever the page has patched (Function.prototype and the
// like), so main-world scripts run at document start only.
func (t *tgt) installScript(ctx context.Context, key string, _ Script) error {
	t.installMu.Lock()
	defer t.installMu.Unlock()
	t.b.mu.Lock()
	sc, ok := t.b.scriptsForLocked(t)[key]
	t.b.mu.Unlock()
	if !ok {
		return nil
	}
	t.mu.Lock()
	old, had := t.scriptID[key]
	t.mu.Unlock()
	res, err := cdp.Call(ctx, t.s, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: sc.Source, WorldName: sc.World, RunImmediately: ptr(sc.World != ""),
	})
	if err != nil {
		return fmt.Errorf("installing script %s: %w", key, err)
	}
	t.mu.Lock()
	t.scriptID[key] = res.Identifier
	t.mu.Unlock()
	if had {
		if err := t.s.Call(ctx, page.CommandRemoveScriptToEvaluateOnNewDocument, page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: old}, nil); err != nil {
			return fmt.Errorf("replacing script %s: %w", key, err)
		}
	}
	return nil
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
	for {
		t.mu.Lock()
		c, ok := t.contexts[frame][world]
		_, frameKnown := t.frames[frame]
		ch := t.changed
		t.mu.Unlock()
		if ok {
			return c, nil
		}
		if !frameKnown {
			return execContext{}, fmt.Errorf("%w: frame %s", ErrFrameGone, frame)
		}
		select {
		case <-ctx.Done():
			return execContext{}, fmt.Errorf("waiting for a script context in frame %s: %w", frame, ctx.Err())
		case <-t.s.Done():
			return execContext{}, fmt.Errorf("%w: frame %s", ErrFrameGone, frame)
		case <-ch:
		}
	}
}

func (t *tgt) loadedLocked(loader cdp.LoaderID) bool { return t.loaded[loader] }

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
