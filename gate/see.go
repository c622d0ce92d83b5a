package gate

import (
	"context"
	"strings"

	"github.com/poppy-browser/poppy-browser/spec"
)

// DoAndSee runs a through [Gate.Do] and, when it changed the page (a
// navigation, back or forward, a click or key that loaded another
// document or opened a tab, a tab selected, opened or closed, a hand back
// since the last action), takes the new snapshot through Gate.Do too and
// returns it in the same result: Text, Elements and Page are the
// snapshot's, and the message says so. One round trip per page change is
// what a model needs: after a page change it cannot act before it has
// read the page (every ref is stale), so a separate snapshot call would
// follow every time.
//
// The snapshot is a second pass through the gate, with every step of its
// own: when the User took control in between, or the page could not be
// read, the result is the action's alone and its message says to take a
// snapshot.
func (g *Gate) DoAndSee(ctx context.Context, a Action) Result { return g.doAndSee(ctx, a, false) }

// DoAndSeeChanges is [Gate.DoAndSee] for a model that keeps what it read
// (an MCP client's): the snapshot it brings shows only what changed since
// the model's last look when the page is the same document
// ([Snapshot].SinceLast), and an action that may change the document
// without leaving it (a click, typing, a key, a select, a hover, a dialog
// answered) brings it too, so that the model sees at once what its action
// did. A new document is always shown whole.
func (g *Gate) DoAndSeeChanges(ctx context.Context, a Action) Result { return g.doAndSee(ctx, a, true) }

func (g *Gate) doAndSee(ctx context.Context, a Action, onlyChanges bool) Result {
	before := g.lastPage()
	res := g.Do(ctx, a)
	changed := changedPage(a, before, res)
	if !changed && !(onlyChanges && mayChange(a) && res.Outcome == spec.OutcomeDone && res.Dialog == nil) {
		return res
	}
	snap := g.Do(ctx, Snapshot{SinceLast: onlyChanges})
	if snap.Outcome != spec.OutcomeDone {
		return res
	}
	if !changed && snap.Page.Epoch != before.Epoch {
		changed = true // the document changed while it was read
	}
	msg := res.Message
	if i := strings.Index(strings.ToLower(msg), "take a snapshot"); i >= 0 {
		msg = strings.TrimRight(msg[:i], " ;:,.") + "."
	}
	if snap.Changes && snap.onlyChanged != "" && snap.onlyChanged == refOf(a) && res.Text == "" {
		// The element acted on is all that changed: the model knows how.
		// The page line after the message says the epoch.
		res.Message = msg + " Nothing else on the page changed."
		res.Page = snap.Page
		return res
	}
	// The page (or what changed) follows the message in the text, with
	// its page line: the message says no more.
	res.Message = msg
	if res.Text != "" { // a WebMCP tool's output, then the page it left
		snap.Text = res.Text + "\n" + snap.Text
	}
	res.Text, res.Elements, res.Page, res.Changes = snap.Text, snap.Elements, snap.Page, snap.Changes
	return res
}

// refOf is the ref an action that may change its document names, ""
// for none.
func refOf(a Action) string {
	if p := a.plan(); p.changes {
		return p.ref
	}
	return ""
}

// mayChange says an action may change the document it acts on without
// leaving it (its plan says so).
func mayChange(a Action) bool { return a.plan().changes }

// changedPage reports whether a done action left the model a page it has
// not read: another document, URL, epoch or tab, or a tab it opened.
func changedPage(a Action, before PageState, res Result) bool {
	if res.Outcome != spec.OutcomeDone || res.Dialog != nil {
		return false // a dialog holds the tab: it is to be answered first
	}
	if a.plan().lease == noLease {
		return false // a read (a snapshot, a screenshot, a wait, the tab list) leaves the page as it was
	}
	return len(res.TabsOpened) > 0 || res.Page.Epoch != before.Epoch || res.Page.URL != before.URL || !sameTab(res.Page.Tab, before.Tab)
}

func sameTab(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
