package browser

import (
	"context"
	"errors"
	"sync"
	"time"
)

// FrameFailure is a frame that [Browser.EachFrame] could not reach.
type FrameFailure struct {
	Page  *Page
	Frame Frame
	Err   error // wraps ErrPageBusy, ErrDialogOpen, ErrCrashed, a ctx error, ...
}

// EachFrame runs fn for every frame of every open tab (every browser
// context), all at once, each under a ctx bounded by perFrame, and returns
// the frames where fn failed. A frame or tab that went away meanwhile is not
// a failure. A tab that is busy, crashed, held by a dialog or still being
// set up fails at its bound (or at once) without holding up the others, so
// a switch of control that updates every Company frame returns within about
// perFrame whatever the pages do. What to do about a frame that failed (retry it, reload it, report
// it) is the caller's decision. Only this package's tests use it (package
// injector fans out itself), so it lives in a test file.
func (b *Browser) EachFrame(ctx context.Context, perFrame time.Duration, fn func(ctx context.Context, p *Page, f Frame) error) []FrameFailure {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		fail []FrameFailure
	)
	for _, p := range b.Pages() {
		for _, f := range p.Frames() {
			wg.Go(func() {
				fctx, cancel := context.WithTimeout(ctx, perFrame)
				defer cancel()
				err := fn(fctx, p, f)
				if err == nil || errors.Is(err, ErrFrameGone) || errors.Is(err, ErrTabClosed) {
					return
				}
				mu.Lock()
				fail = append(fail, FrameFailure{Page: p, Frame: f, Err: err})
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	return fail
}
