package gate

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/internal/pagetext"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// This file reports the window after an action: the in-page guard stays
// armed two seconds after the frames' disarm (marks.Disarm) for what the
// action's scripts do later (a timer, a promise), without holding the call
// up. What it stopped then is read at the gate's next action, in every
// frame the last one disarmed (or could not: a busy tab armed late) and in
// the Company frames of every tab opened since it began (a target=_blank
// link, window.open: their first documents armed the guard at their start,
// see newdocuments.go), and said in that action's result and in the audit
// log.

// lateReader is a surface that reads what a frame's guard stopped after
// its action returned (see marks.Late); undisarmed says the action did
// not disarm the frame.
type lateReader interface {
	Late(ctx context.Context, f Frame, undisarmed bool) (*marks.Caught, error)
}

func (s *pageSurface) Late(ctx context.Context, f Frame, undisarmed bool) (*marks.Caught, error) {
	return marks.Late(ctx, f.handle, undisarmed)
}

// afterAction is the last action whose guard may still watch: the frames
// it disarmed or could not (undisarmed, by frame id: a busy tab's arming
// that timed out, a failed disarm) and its tool, for the report. Guarded
// by the gate's sem.
// tabsSince is the tab mark when it began (see Activity.Tabs), when it
// was read: the tabs opened after it are the action's too.
type afterAction struct {
	frames     []Frame
	undisarmed map[string]bool
	tool       string
	tabsSince  *uint64
}

// openedTabs is a surface that lists the frames of the tabs of its browser
// context opened after a tab mark, each tab's top frame first.
type openedTabs interface {
	FramesOfTabsOpenedSince(mark uint64) []Frame
}

func (s *pageSurface) FramesOfTabsOpenedSince(mark uint64) []Frame {
	tabs := s.p.Tabs()
	if tabs == nil {
		return nil
	}
	var out []Frame
	for _, t := range tabs.OpenedSince(mark) {
		for _, f := range t.Page.Frames() {
			out = append(out, Frame{ID: string(f.ID), ParentID: string(f.ParentID), URL: f.URL, handle: f})
		}
	}
	return out
}

var _ openedTabs = (*pageSurface)(nil)

// lateTabFrames bounds the frames of opened tabs readLate reads: a page
// that opens many tabs does not make the next action read them all.
const lateTabFrames = 16

// keepAfter keeps the run's frames, and the tab mark before its action
// (nil: the run stopped before reading it), for the next action's
// readLate.
func (r *run) keepAfter(tool string, prior *Activity) {
	if len(r.disarmed)+len(r.undisarmed) == 0 {
		return
	}
	last := afterAction{frames: r.disarmed, undisarmed: map[string]bool{}, tool: tool}
	if prior != nil {
		mark := prior.Tabs
		last.tabsSince = &mark
	}
	for _, f := range r.undisarmed {
		if !last.undisarmed[f.ID] && !slices.ContainsFunc(r.disarmed, func(d Frame) bool { return d.ID == f.ID }) {
			last.frames = append(last.frames, f)
		}
		last.undisarmed[f.ID] = true
	}
	r.g.after = last
}

// lateCatch is what the guard stopped after the last action returned.
type lateCatch struct {
	frame  Frame
	caught *marks.Caught
	tool   string
}

// lateWait bounds reading the frames of the last action.
const lateWait = 2 * time.Second

// readLate reads, once, what the guard stopped after the last action in
// the frames it disarmed or could not and in the Company frames of the
// tabs opened since it began, in parallel; the first catch is the run's to
// report.
func (r *run) readLate(ctx context.Context) {
	last := r.g.after
	r.g.after = afterAction{}
	lr, ok := r.s.(lateReader)
	if !ok || len(last.frames) == 0 {
		return
	}
	last.frames = append(slices.Clip(last.frames), r.openedFrames(last)...)
	found := make([]*marks.Caught, len(last.frames))
	forEach(len(last.frames), func(i int) {
		lctx, cancel := context.WithTimeout(ctx, lateWait)
		defer cancel()
		f := last.frames[i]
		found[i], _ = lr.Late(lctx, f, last.undisarmed[f.ID]) // a frame gone or busy stopped nothing to report
	})
	for i, c := range found {
		if c != nil && len(c.Marks) > 0 {
			r.late = &lateCatch{frame: last.frames[i], caught: c, tool: last.tool}
			return
		}
	}
}

// openedFrames lists the Company frames of the tabs opened since the last
// action began that are not among its frames, at most lateTabFrames.
func (r *run) openedFrames(last afterAction) []Frame {
	ot, ok := r.s.(openedTabs)
	if !ok || last.tabsSince == nil {
		return nil
	}
	var out []Frame
	for _, f := range ot.FramesOfTabsOpenedSince(*last.tabsSince) {
		if len(out) == lateTabFrames {
			break
		}
		host, web := pagetext.WebHost(f.URL)
		if !web || !r.g.company(host) || slices.ContainsFunc(last.frames, func(d Frame) bool { return d.ID == f.ID }) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// reportLate adds what the guard stopped after the last action to res
// and records it in the audit log.
func (r *run) reportLate(res *Result) {
	l := r.late
	if l == nil {
		return
	}
	m := r.markRefs(l.frame, l.caught.Marks[0])
	res.Message += fmt.Sprintf(" After the previous action (%s) returned, a script it started went on and the in-page guard stopped its %s, because it reached a step the Company leaves to the User (%s mark on %s): the step was not taken.",
		l.tool, l.caught.Event, m.Kind, m.Marked)
	e := audit.Entry{Event: audit.EventDenied, Tool: l.tool, Reason: string(spec.ReasonUserStep), URL: withoutQuery(l.frame.URL), Epoch: res.Page.Epoch, By: r.g.by,
		Message: "stopped by the in-page guard after the action returned (" + l.caught.Event + ")",
		Mark:    &audit.Mark{Kind: m.Kind, Marked: m.Marked, Touches: m.Touches}}
	if err := r.g.audit.Record(e); err != nil {
		r.g.log.Error("audit record failed", "tool", l.tool, "err", err)
	}
}
