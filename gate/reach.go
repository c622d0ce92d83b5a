package gate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/internal/pagetext"
	"github.com/poppy-browser/poppy-browser/marks"
)

// This file arms the in-page guard beyond the frames an action's check
// armed: a script the action runs may reach every frame and tab of the
// Session's browser context that shows the Company's website (window.opener,
// a named window, a parent), so the guard is armed in each of them for the
// length of the action, in parallel and bounded, and disarmed after.

// Elsewhere is the rest of the page's browser context (the Session's): the
// frames of its other tabs. A surface without it is alone in its browser.
type Elsewhere interface {
	OtherTabFrames() []Frame
}

var _ Elsewhere = (*pageSurface)(nil)

// OtherTabFrames lists the frames of every other tab of the page's
// browser context, each tab's top frame first.
func (s *pageSurface) OtherTabFrames() []Frame {
	var out []Frame
	for _, p := range s.p.Context().Pages() {
		if p == s.p {
			continue
		}
		for _, f := range p.Frames() {
			out = append(out, Frame{ID: string(f.ID), ParentID: string(f.ParentID), URL: f.URL, handle: f})
		}
	}
	return out
}

// Bounds on arming the guard elsewhere: a busy tab must not hold the
// action up; it is said in the result instead.
const (
	armWait     = 5 * time.Second
	armParallel = 4
)

// armElsewhere arms the guard in every Company frame of the page and of
// the Session's other tabs but checked (those the check arms): a (the
// plan's touch) says for how long. It runs beside the check, so it adds
// no round trip to the action's time; it returns the frames it armed and
// the URLs of those it could not arm in armWait, and keeps those frames in
// r.undisarmed (read by the caller after it returns): the arming may still
// run there once the tab is free, and the next action reads what that
// guard stopped. The page's frames must have been read (r.frames) before.
func (r *run) armElsewhere(ctx context.Context, a marks.Action, checked []Frame) (elsewhere []Frame, unguarded []string) {
	armed := map[string]bool{}
	for _, f := range checked {
		armed[f.ID] = true
	}
	var todo []Frame
	add := func(fs []Frame) {
		for _, f := range fs {
			if host, web := pagetext.WebHost(f.URL); web && r.g.company(host) && !armed[f.ID] {
				armed[f.ID] = true
				todo = append(todo, f)
			}
		}
	}
	add(r.frames())
	if e, ok := r.s.(Elsewhere); ok {
		add(e.OtherTabFrames())
	}
	if len(todo) == 0 {
		return nil, nil
	}
	// As the check's: a guard that stood down for the User's turn of this
	// epoch arms nothing.
	g := marks.Action{Kind: marks.ActionGuard, Agent: r.probe == nil || !r.probe.AsUser, Epoch: r.turn, Tool: a.Kind == marks.ActionTool}
	ok := make([]bool, len(todo))
	errs := make([]error, len(todo))
	forEach(len(todo), func(i int) {
		actx, cancel := context.WithTimeout(ctx, armWait)
		defer cancel()
		_, errs[i] = r.marks.Check(actx, todo[i], g)
		ok[i] = errs[i] == nil
	})
	for i, f := range todo {
		switch {
		case ok[i]:
			elsewhere = append(elsewhere, f)
		case errors.Is(errs[i], browser.ErrFrameGone):
		default:
			r.g.log.Debug("arming the guard elsewhere failed", "url", f.URL, "err", errs[i])
			unguarded = append(unguarded, f.URL)
			r.undisarmed = append(r.undisarmed, f)
		}
	}
	return elsewhere, unguarded
}

// arms says whether the check of plan p arms the guard, and in which
// frames (see checkMarks).
func (r *run) arms(p *plan, st *step) (bool, []Frame) {
	if p.touch == nil {
		return false, nil
	}
	k := p.touch.Kind
	if !((r.probe == nil || k == marks.ActionTool) && k != marks.ActionScroll && k != marks.ActionFocus && k != marks.ActionWheel) {
		return false, nil
	}
	if p.focused {
		return true, r.frames()
	}
	return true, []Frame{st.frame}
}

// forEach runs fn(0..n-1), armParallel at a time, and waits for them.
func forEach(n int, fn func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, armParallel)
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			fn(i)
		})
	}
	wg.Wait()
}

// unguardedNote is the sentence a result gets when the guard could not be
// armed somewhere, or "".
func (r *run) unguardedNote() string {
	if len(r.unguarded) == 0 {
		return ""
	}
	urls := make([]string, 0, len(r.unguarded))
	for _, u := range r.unguarded {
		urls = append(urls, clipText(u, 200))
	}
	return fmt.Sprintf(" The in-page guard could not be armed in %d busy frame(s) of the Company's website in this or another tab (%s): a script of this action there was not watched while it was busy (what the guard stops there once it is free, the next result says).",
		len(urls), strings.Join(urls, ", "))
}

// inOtherTab says whether frame f is not one of the page's own.
func (r *run) inOtherTab(f Frame) bool {
	for _, g := range r.frames() {
		if g.ID == f.ID {
			return false
		}
	}
	return true
}
