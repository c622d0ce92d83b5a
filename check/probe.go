package check

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
)

// Probe waits. What an action caused is waited for on the page's own
// signals, not for a fixed time: a navigation or request it sent (the
// browser's request interception tells at once), a submit or formdata
// event, a change of the DOM or a resource finished (the watcher of
// package marks, read in the page's own event loop, so an input's tasks
// have run before a report that follows them). The wait ends when the
// page has settled: probeQuiet with none of these since the last, and no
// submit event still owing its request. A page that never settles (an
// animation, a ticking clock) ends the wait at probeBound, and the finding
// says so. probeBound is the page's own time: the time its timers fired
// late in the wait for quiet (a renderer starved on a loaded machine, when
// the page ran not at all) is added to it, up to probeCeiling, so a page
// that settles is not taken for one that never does because the machine
// was busy. A probe's fresh load waits until the page shows the marks of
// the first load and is quiet (see pageRun.watch).
const (
	probeQuiet   = 500 * time.Millisecond // settled: this long without a signal
	probeBound   = 4 * time.Second        // the longest wait for one action's effect, in the page's time
	probeCeiling = 20 * time.Second       // the longest wait, however starved the page
	probePoll    = 40 * time.Millisecond  // how often the page's watcher is read
	probeGap     = 200 * time.Millisecond // a page timer later than this: its loop was starved
)

// settled reports whether every frame's document settled (the probe
// view's Settle), frame after frame, before deadline, and the longest
// time a frame's timers fired late meanwhile (the page did not run).
func (r *pageRun) settled(ctx context.Context, frames []frameData, deadline time.Time) (ok bool, late time.Duration) {
	for _, fd := range frames {
		left := time.Until(deadline)
		if left < probeQuiet {
			return false, late
		}
		res, err := r.rt.probe.Settle(ctx, fd.f, probeQuiet, min(left, 2*probeQuiet), probeGap)
		if err != nil {
			continue // gone or replaced: nothing more to see there
		}
		late = max(late, res.Late)
		if !res.Settled {
			return false, late
		}
	}
	return true, late
}

// recorder keeps the navigations and non-GET requests of the page's frames
// while a probe runs, and blocks them: nothing reaches the server. It
// counts every request of the frames (GETs too) and kicks the waiting
// probe on each.
type recorder struct {
	mu     sync.Mutex
	frames map[string]bool
	reqs   []browser.Request
	seen   int
	kick   chan struct{}
}

// sent is how many requests of the page's frames the recorder has seen.
func (rec *recorder) sent() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.seen
}

func (rec *recorder) requests() []browser.Request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.reqs)
}

// record starts a recorder over the page's current frames.
func (r *pageRun) record(ctx context.Context) (*recorder, func(), error) {
	rec := &recorder{frames: map[string]bool{}, kick: make(chan struct{}, 1)}
	for _, f := range r.p.Frames() {
		rec.frames[string(f.ID)] = true
	}
	stop, err := r.sv.ObserveRequests(ctx, func(req browser.Request) bool {
		if !rec.frames[string(req.FrameID)] {
			return false
		}
		block := req.Method != "GET" || req.ResourceType == "Document"
		rec.mu.Lock()
		rec.seen++
		if block {
			rec.reqs = append(rec.reqs, req)
		}
		rec.mu.Unlock()
		select {
		case rec.kick <- struct{}{}:
		default:
		}
		return block
	})
	return rec, stop, err
}

// effect is what an action caused in the page's frames.
type effect struct {
	events map[string][]marks.FormEvent // by frame id: submit and formdata events after the action
	reqs   []browser.Request
	dirty  bool // the DOM changed, a form event fired or a request was made
	// bounded: the wait ended at probeBound, the page not settled.
	bounded bool
}

// boundNote is what a finding adds when its probe's wait hit the bound.
func (e effect) boundNote() string {
	if !e.bounded {
		return ""
	}
	return fmt.Sprintf(" (The checker stopped waiting after %g s, the page not yet settled: the action may have caused more.)", probeBound.Seconds())
}

// submitted reports whether form of the frame was submitted (or its data
// gathered for a request that followed).
func (e effect) submitted(frame browser.Frame, form int) bool {
	for _, ev := range e.events[string(frame.ID)] {
		if ev.Form == form && (ev.Type == "submit" || len(e.reqs) > 0) {
			return true
		}
	}
	return false
}

// clocks are the frames' document clocks before an action.
type clocks map[string]float64

func (r *pageRun) clocks(ctx context.Context, frames []frameData) clocks {
	out := clocks{}
	for _, fd := range frames {
		out[string(fd.f.ID)] = now(ctx, fd.f)
	}
	return out
}

// describeRequests names requests for a message, without hosts or queries.
func describeRequests(reqs []browser.Request) string {
	var parts []string
	for _, q := range reqs {
		path := q.URL
		if u, err := url.Parse(q.URL); err == nil {
			path = u.Path
		}
		what := "request"
		if q.ResourceType == "Document" {
			what = "navigation"
		}
		s := fmt.Sprintf("a %s %s to %s", q.Method, what, path)
		if !slices.Contains(parts, s) {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ", ")
}

// watchEffect waits for what the action just taken caused: events of the
// frames' documents after their clocks, and recorded requests after before.
// It ends once the page has settled (see probeQuiet), or at probeBound.
func (r *pageRun) watchEffect(ctx context.Context, frames []frameData, since clocks, rec *recorder, before int) effect {
	start := time.Now()
	deadline, ceiling := start.Add(probeBound), start.Add(probeCeiling)
	bound := time.NewTimer(probeBound)
	defer bound.Stop()
	poll := time.NewTicker(probePoll)
	defer poll.Stop()
	type mark struct {
		change, network float64
		events          int
	}
	last := map[string]mark{} // each frame's signals at the previous read
	seen := rec.sent()
	var e effect
	for {
		e.events, e.dirty = map[string][]marks.FormEvent{}, false
		submit, signal := false, false
		for _, fd := range frames {
			id := string(fd.f.ID)
			w, err := marks.WatchReport(ctx, fd.f)
			if err != nil {
				e.dirty = true // gone or replaced: reload before the next probe
				continue
			}
			t := since[id]
			e.dirty = e.dirty || w.LastChange > t
			for _, ev := range w.Events {
				if ev.At > t {
					e.events[id] = append(e.events[id], ev)
					submit = submit || ev.Type == "submit"
				}
			}
			m := mark{w.LastChange, w.LastNetwork, len(w.Events)}
			prev, ok := last[id]
			if (ok && m != prev) || (!ok && (w.LastChange > t || w.LastNetwork > t || len(e.events[id]) > 0)) {
				signal = true
			}
			last[id] = m
		}
		if n := rec.sent(); n != seen {
			seen, signal = n, true
		}
		e.reqs = rec.requests()[before:]
		e.dirty = e.dirty || len(e.reqs) > 0 || len(e.events) > 0
		owed := submit && len(e.reqs) == 0 // a submit event whose request has not come
		// Quiet on this side (no request, no change between two reads) is
		// confirmed in the page's own event loop, which a starved renderer
		// cannot fake.
		quiet := false
		if !signal && !owed {
			var late time.Duration
			quiet, late = r.settled(ctx, frames, deadline)
			if late > 0 && deadline.Before(ceiling) {
				// The page did not run for that long: its bound waits.
				if deadline = deadline.Add(late); deadline.After(ceiling) {
					deadline = ceiling
				}
				bound.Reset(time.Until(deadline))
			}
		}
		if quiet && rec.sent() == seen && len(rec.requests()[before:]) == len(e.reqs) {
			still := true // and nothing changed between the read above and the page's wait
			for _, fd := range frames {
				if w, err := marks.WatchReport(ctx, fd.f); err == nil && last[string(fd.f.ID)] != (mark{w.LastChange, w.LastNetwork, len(w.Events)}) {
					still = false
				}
			}
			if still {
				return e
			}
		}
		select {
		case <-ctx.Done():
			return e
		case <-bound.C:
			e.bounded = true
			if reqs := rec.requests()[before:]; len(reqs) > len(e.reqs) {
				e.reqs, e.dirty = reqs, true
			}
			return e
		case <-rec.kick:
		case <-poll.C:
		}
	}
}

// reload loads the page afresh for a probe (the caller holds the
// controller it wants) and reads its frames, once the marks of the first
// load are there.
func (r *pageRun) reload(ctx context.Context) ([]frameData, error) {
	if err := r.load(ctx, 0, max(len(r.rep.Marks), 1)); err != nil {
		return nil, err
	}
	return r.readFrames(ctx), nil
}

// sameFrame finds want's frame among frames: same URL and as many marks.
func sameFrame(frames []frameData, want frameData) (frameData, bool) {
	for _, fd := range frames {
		if fd.f.URL == want.f.URL && len(fd.inv) == len(want.inv) {
			return fd, true
		}
	}
	return frameData{}, false
}

// now is the frame document's clock.
func now(ctx context.Context, f browser.Frame) float64 {
	w, err := marks.WatchReport(ctx, f)
	if err != nil {
		return 0
	}
	return w.Now
}

// unsettledAfter notes a probe whose wait hit its bound and saw nothing.
func (r *pageRun) unsettledAfter(e effect, what string) {
	if e.bounded && !slices.Contains(r.unsettled, what) {
		r.unsettled = append(r.unsettled, what)
	}
}

// unsettledFinding reports the probes that stopped waiting at their bound
// having seen nothing: nothing they caused was seen, but what they would
// have caused later is not ruled out.
func (r *pageRun) unsettledFinding() {
	if len(r.unsettled) == 0 {
		return
	}
	shown := r.unsettled
	more := ""
	if len(shown) > 5 {
		shown, more = shown[:5], fmt.Sprintf(" and %d more", len(r.unsettled)-5)
	}
	r.rep.Findings = append(r.rep.Findings, finding("probe-unsettled", Info, CheckSubmitPaths, "BC-4-mark-all", fmt.Sprintf(
		"The page had not settled %g s after %s%s (the DOM or its requests kept changing), so the checker stopped waiting: nothing they caused was seen, but what they caused later is not ruled out. Info, not a warning: no way out was found; run check again on a quieter machine, or make the page settle.",
		probeBound.Seconds(), strings.Join(shown, ", "), more)))
}
