package agent

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// settleTimeout bounds the wait for a navigation that input may start.
const settleTimeout = 3 * time.Second

// frameScanTimeout bounds the scan of one frame in a snapshot: a frame
// whose document is still coming (an out-of-process iframe right after
// its parent loaded) is left out rather than holding the snapshot.
const frameScanTimeout = 5 * time.Second

func (a Click) apply(ctx context.Context, r *run) Result {
	t, res := r.resolve(ctx, a.Ref)
	if res != nil {
		return *res
	}
	v, res := r.check(ctx, t, marks.Action{Kind: "click", ID: t.id})
	if res != nil {
		return *res
	}
	if v.Point == nil {
		return r.failed(ctx, FailNotVisible, fmt.Sprintf("Element %s has no visible box to click; scroll to it or take a new snapshot.", t.ref))
	}
	ox, oy, err := r.s.offset(ctx, t.frame)
	if err != nil {
		return r.failed(ctx, FailPage, "Could not locate the element's frame: "+err.Error())
	}
	x, y := ox+v.Point.X+v.Point.Width/2, oy+v.Point.Y+v.Point.Height/2
	if res := r.input(ctx, func() error { return r.s.click(ctx, x, y) }); res != nil {
		return *res
	}
	r.s.settle(ctx)
	return r.done(ctx, fmt.Sprintf("Clicked %s.", t.ref))
}

func (a Type) apply(ctx context.Context, r *run) Result {
	t, res := r.resolve(ctx, a.Ref)
	if res != nil {
		return *res
	}
	// One round trip covers typing and, with Submit, the Enter that may
	// submit the form: nothing is typed when either is the User's.
	check := marks.Action{Kind: "type", ID: t.id}
	if a.Submit {
		check.Key = "Enter"
	}
	if _, res := r.check(ctx, t, check); res != nil {
		if a.Submit && res.Reason == spec.ReasonUserStep {
			res.Message = "Nothing was typed. " + res.Message
		}
		return *res
	}
	if res := r.input(ctx, func() error {
		if err := r.s.focus(ctx, t.frame, t.id); err != nil {
			return err
		}
		if err := r.s.insertText(ctx, a.Text); err != nil || !a.Submit {
			return err
		}
		return r.s.press(ctx, "Enter")
	}); res != nil {
		return *res
	}
	msg := fmt.Sprintf("Typed %d characters into %s.", len([]rune(a.Text)), t.ref)
	if a.Submit {
		msg = fmt.Sprintf("Typed %d characters into %s and pressed Enter.", len([]rune(a.Text)), t.ref)
	}
	r.s.settle(ctx)
	return r.done(ctx, msg)
}

func (a Select) apply(ctx context.Context, r *run) Result {
	t, res := r.resolve(ctx, a.Ref)
	if res != nil {
		return *res
	}
	if len(a.Values) == 0 {
		return r.failed(ctx, FailBadArgument, "Give at least one value to select.")
	}
	if _, res := r.check(ctx, t, marks.Action{Kind: "select", ID: t.id}); res != nil {
		return *res
	}
	var selected []string
	if res := r.input(ctx, func() error {
		var err error
		selected, err = r.s.selectValues(ctx, t.frame, t.id, a.Values)
		return err
	}); res != nil {
		return *res
	}
	out := r.done(ctx, fmt.Sprintf("Selected %s in %s.", quoteList(selected), t.ref))
	out.Selected = selected
	return out
}

func (a PressKey) apply(ctx context.Context, r *run) Result {
	if a.Key == "" {
		return r.failed(ctx, FailBadArgument, "Give a key to press, such as Enter or Tab.")
	}
	if a.Ref != "" {
		t, res := r.resolve(ctx, a.Ref)
		if res != nil {
			return *res
		}
		if _, res := r.check(ctx, t, marks.Action{Kind: "key", ID: t.id, Key: a.Key}); res != nil {
			return *res
		}
		if res := r.input(ctx, func() error {
			if err := r.s.focus(ctx, t.frame, t.id); err != nil {
				return err
			}
			return r.s.press(ctx, a.Key)
		}); res != nil {
			return *res
		}
		r.s.settle(ctx)
		return r.done(ctx, fmt.Sprintf("Pressed %s on %s.", a.Key, t.ref))
	}
	if r.g.ctl.Status().MustReobserve {
		return r.denied(ctx, spec.ReasonStaleRef, "Control came back from the User; take a new snapshot with browser_snapshot before pressing keys.")
	}
	// The key goes to whatever has focus, in whichever frame: ask every
	// frame what it would touch there.
	for _, f := range r.s.frames() {
		v, err := r.s.check(ctx, f.ID, marks.Action{Kind: "key", Key: a.Key, Arm: true})
		if errors.Is(err, browser.ErrFrameGone) {
			continue
		}
		if err != nil {
			r.disarm(ctx)
			return r.failed(ctx, FailPage, "Could not read the page to check this key: "+err.Error())
		}
		r.armed = append(r.armed, f.ID)
		v.Stale = false
		if res := r.verdict(ctx, f.ID, "", v); res != nil {
			r.disarm(ctx)
			return *res
		}
	}
	if res := r.input(ctx, func() error { return r.s.press(ctx, a.Key) }); res != nil {
		return *res
	}
	r.s.settle(ctx)
	return r.done(ctx, fmt.Sprintf("Pressed %s.", a.Key))
}

func (a Scroll) apply(ctx context.Context, r *run) Result {
	amount := a.Amount
	if amount <= 0 {
		amount = DefaultScroll
	}
	var dx, dy float64
	switch a.Direction {
	case "down", "":
		dy = amount
	case "up":
		dy = -amount
	case "right":
		dx = amount
	case "left":
		dx = -amount
	default:
		return r.failed(ctx, FailBadArgument, fmt.Sprintf("Direction %q is not one of up, down, left, right.", a.Direction))
	}
	if a.Ref == "" {
		if res := r.input(ctx, func() error { return r.s.wheel(ctx, dx, dy) }); res != nil {
			return *res
		}
		return r.done(ctx, fmt.Sprintf("Scrolled the page %s.", cmpDir(a.Direction)))
	}
	t, res := r.resolve(ctx, a.Ref)
	if res != nil {
		return *res
	}
	if _, res := r.check(ctx, t, marks.Action{Kind: "scroll", ID: t.id}); res != nil {
		return *res
	}
	if res := r.input(ctx, func() error { return r.s.scrollBy(ctx, t.frame, t.id, dx, dy) }); res != nil {
		return *res
	}
	return r.done(ctx, fmt.Sprintf("Scrolled %s %s.", t.ref, cmpDir(a.Direction)))
}

func cmpDir(d string) string {
	if d == "" {
		return "down"
	}
	return d
}

func (a Navigate) apply(ctx context.Context, r *run) Result {
	u, err := url.Parse(a.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return r.failed(ctx, FailBadURL, "Only absolute http and https URLs can be opened.")
	}
	if res := r.stillAgent(); res != nil {
		return *res
	}
	if err := r.s.navigate(ctx, u.String()); err != nil {
		return r.failed(ctx, FailNavigation, "The page did not load: "+err.Error())
	}
	return r.done(ctx, "Loaded the page; take a snapshot to see it.")
}

func (Back) apply(ctx context.Context, r *run) Result {
	if res := r.stillAgent(); res != nil {
		return *res
	}
	if err := r.s.back(ctx); err != nil {
		return r.failed(ctx, FailNavigation, "Could not go back: "+err.Error())
	}
	return r.done(ctx, "Went back; take a snapshot to see the page.")
}

func (a Wait) apply(ctx context.Context, r *run) Result {
	d := time.Duration(a.Seconds * float64(time.Second))
	switch {
	case d <= 0 && a.Text != "":
		d = MaxWait
	case d <= 0:
		d = time.Second
	case d > MaxWait:
		d = MaxWait
	}
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		if res := r.stillAgent(); res != nil {
			return *res
		}
		if a.Text != "" && r.pageHasText(wctx, a.Text) {
			return r.done(ctx, fmt.Sprintf("The text %q is on the page.", a.Text))
		}
		select {
		case <-wctx.Done():
			if ctx.Err() != nil {
				return r.failed(ctx, FailTimeout, "The wait was cut short.")
			}
			if a.Text != "" {
				return r.failed(ctx, FailTimeout, fmt.Sprintf("The text %q did not appear within %s.", a.Text, d))
			}
			return r.done(ctx, fmt.Sprintf("Waited %s.", d))
		case <-tick.C:
		}
	}
}

// pageHasText reports whether any frame shows text (case-insensitive).
func (r *run) pageHasText(ctx context.Context, text string) bool {
	want := strings.ToLower(text)
	for _, f := range r.s.frames() {
		sc, err := r.s.scan(ctx, f.ID)
		if err != nil {
			continue
		}
		if strings.Contains(strings.ToLower(sc.Title), want) {
			return true
		}
		for _, e := range sc.Elements {
			if e.UserField {
				continue
			}
			if strings.Contains(strings.ToLower(e.Text), want) || strings.Contains(strings.ToLower(e.Name), want) {
				return true
			}
		}
	}
	return false
}

func (Snapshot) apply(ctx context.Context, r *run) Result {
	st := r.g.ctl.Status()
	var scans []frameScan
	for _, f := range r.s.frames() {
		if f.URL == "" {
			scans = append(scans, frameScan{frame: f, err: errors.New("the frame has no document yet")})
			continue
		}
		fctx, cancel := context.WithTimeout(ctx, frameScanTimeout)
		sc, err := r.s.scan(fctx, f.ID)
		cancel()
		scans = append(scans, frameScan{frame: f, scan: sc, err: err})
	}
	if res := r.stillAgent(); res != nil {
		return *res
	}
	// A new document or a hand back during the scan makes its ids useless.
	if r.sync(ctx).Epoch != st.Epoch || r.g.refs.epoch != r.epochAtStart {
		return r.failed(ctx, FailNavigation, "The page changed while it was read; take the snapshot again.")
	}
	page := r.page(ctx)
	text, elems := renderSnapshot(scans, r.g.refs, r.g.company, page)
	if elems == nil {
		elems = []ElementInfo{} // a snapshot always has elements, even none
	}
	r.g.ctl.ObservedAt(st.Epoch)
	return Result{Outcome: spec.OutcomeDone, Message: fmt.Sprintf("Snapshot of %d elements; refs are valid in epoch %d.", len(elems), page.Epoch),
		Page: page, Text: text, Elements: elems}
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}
