package check

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
)

// load loads the page afresh and watches it (see watch). The caller holds
// the controller it wants (asAgent, asUser).
func (r *pageRun) load(ctx context.Context, window time.Duration, wantMarks int) error {
	lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := r.rt.probe.Load(lctx, r.p, r.url)
	if err != nil {
		return fmt.Errorf("loading the page: %w%s", err, loadHint(err, dnsUp(ctx)))
	}
	if again, err := r.storeLocal(lctx); err != nil {
		return err
	} else if again {
		// The local storage of the storage state is there now: load the
		// page as a signed-in visitor's browser would.
		if res, err = r.rt.probe.Load(lctx, r.p, r.url); err != nil {
			return fmt.Errorf("loading the page: %w%s", err, loadHint(err, dnsUp(ctx)))
		}
	}
	if res.Status >= 400 {
		return fmt.Errorf("loading the page: HTTP %d", res.Status)
	}
	return r.watch(ctx, window, wantMarks)
}

// watch observes the loaded page for window, then until its network and
// DOM have been quiet for Quiet (at most Settle more): a mark added by a
// timer, a fetch or a framework's hydration arrives within it. With
// wantMarks > 0 (a probe's fresh load of a page whose marks are known) it
// ends as soon as that many marks and the first load's frames are there
// and the page is quiet, or after
// Watch plus Settle. It adopts closed shadow roots as they appear.
func (r *pageRun) watch(ctx context.Context, window time.Duration, wantMarks int) error {
	start := time.Now()
	limit := window + r.c.opts.Settle
	if wantMarks > 0 {
		limit = r.c.opts.Watch + r.c.opts.Settle
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var lastReq atomic.Int64 // unix nanos of the page's last request
	lastReq.Store(time.Now().UnixNano())
	frameIDs := func() map[string]bool {
		ids := map[string]bool{}
		for _, f := range r.p.Frames() {
			ids[string(f.ID)] = true
		}
		return ids
	}
	var ids atomic.Pointer[map[string]bool]
	m := frameIDs()
	ids.Store(&m)
	stop, err := r.sv.ObserveRequests(ctx, func(q browser.Request) bool {
		if (*ids.Load())[string(q.FrameID)] {
			lastReq.Store(time.Now().UnixNano())
		}
		return false
	})
	if err != nil {
		return err
	}
	defer stop()
	tick := time.NewTicker(150 * time.Millisecond)
	defer tick.Stop()
	quiet := r.c.opts.Quiet
	if wantMarks > 0 {
		// A probe's fresh load: the marks are known, so a shorter quiet
		// period is enough to let the page's own load handlers run.
		quiet = min(quiet, 400*time.Millisecond)
	}
	lastScan := time.Time{}
	for {
		m := frameIDs()
		ids.Store(&m)
		still, count := time.Since(time.Unix(0, lastReq.Load())) >= quiet, 0
		for _, f := range r.p.Frames() {
			fctx, fcancel := context.WithTimeout(ctx, 2*time.Second)
			if time.Since(lastScan) > time.Second {
				_, _ = marks.ScanFrame(fctx, f) // adopts closed shadow roots for the watcher
			}
			w, err := marks.WatchReport(fctx, f)
			fcancel()
			if err != nil {
				continue
			}
			count += len(w.Marked)
			if w.Now-max(w.LastChange, w.LastNetwork) < float64(quiet.Milliseconds()) || w.Parsed == 0 {
				still = false
			}
		}
		if time.Since(lastScan) > time.Second {
			lastScan = time.Now()
		}
		done := still && time.Since(start) >= window
		if wantMarks > 0 {
			// The frames of the first load are back too (a frame a script
			// inserts late, whose controls a probe tries).
			done = still && count >= wantMarks && len(r.p.Frames()) >= len(r.first)
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			if err := context.Cause(ctx); !errors.Is(err, context.DeadlineExceeded) {
				return err
			}
			return nil // the bound: read the page as it is
		case <-tick.C:
		}
	}
}
