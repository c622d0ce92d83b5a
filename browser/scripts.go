package browser

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/page"
)

// scriptVersion is one install of a script in a target.
type scriptVersion struct {
	id    page.ScriptIdentifier // set before known closes; "" when the install failed
	known chan struct{}
}

// scriptWait is how long SetScript waits for a target to confirm an
// install, to report a refusal; a target that does not answer by then
// (busy, held by a dialog, crashed) gets the script all the same, see
// installScript.
const scriptWait = 300 * time.Millisecond

// installScript installs the browser's current script under key in the
// target, replacing the versions installed before. It never waits for a
// renderer that does not answer: the commands are sent at once, in order,
// and a session runs its commands in the order they were sent (a crashed
// renderer's session hands them to the renderer that a navigation starts),
// so every document the target starts from now on runs the new version.
// The new version is added, then each older one removed once its own
// identifier is known, so no document runs none.
//
// Only isolated-world scripts also run at once in loaded documents: running
// a main-world script after the page's own scripts would hand its arguments
// to whatever the page has patched (Function.prototype and the like), so
// main-world scripts run at document start only, as do scripts that ask
// for it (Script.StartOnly).
func (t *tgt) installScript(ctx context.Context, key string) error {
	t.installMu.Lock()
	t.b.mu.Lock()
	sc, ok := t.b.scriptsForLocked(t)[key]
	t.b.mu.Unlock()
	if !ok {
		t.installMu.Unlock()
		return nil
	}
	id, ch, err := t.s.Send(ctx, page.CommandAddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: sc.Source, WorldName: sc.World, RunImmediately: ptr(sc.World != "" && !sc.StartOnly),
	})
	if err != nil {
		t.installMu.Unlock()
		return fmt.Errorf("installing script %s: %w", key, gone(err))
	}
	v := &scriptVersion{known: make(chan struct{})}
	t.mu.Lock()
	older := t.scripts[key]
	t.scripts[key] = []*scriptVersion{v}
	t.mu.Unlock()
	for _, o := range older {
		t.retire(o)
	}
	t.installMu.Unlock()

	var failed error
	unresponsive := t.blocked(mainThread) != nil // crashed or held by a dialog: no answer soon
	t.b.wg.Go(func() {
		var res page.AddScriptToEvaluateOnNewDocumentResult
		err := t.s.Wait(t.b.ctx, id, ch, page.CommandAddScriptToEvaluateOnNewDocument, &res)
		if err != nil {
			failed = err
		} else {
			v.id = res.Identifier
		}
		close(v.known)
	})
	if unresponsive {
		return nil
	}
	wait := time.NewTimer(scriptWait)
	defer wait.Stop()
	select {
	case <-v.known:
		if failed != nil && !isGone(failed) {
			return fmt.Errorf("installing script %s: %w", key, failed)
		}
	case <-wait.C:
	case <-ctx.Done():
	}
	return nil
}

// retire removes an older version of a script once its identifier is
// known: at once when it is, else when the target answers its install.
func (t *tgt) retire(o *scriptVersion) {
	remove := func() {
		if o.id == "" {
			return
		}
		// The reply does not matter: the version is gone either way.
		_, _, _ = t.s.Send(t.b.ctx, page.CommandRemoveScriptToEvaluateOnNewDocument, page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: o.id})
	}
	select {
	case <-o.known:
		remove()
	default:
		t.b.wg.Go(func() {
			select {
			case <-o.known:
				remove()
			case <-t.s.Done():
			case <-t.b.ctx.Done():
			}
		})
	}
}
