package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	cdpconn "github.com/poppy-browser/poppy-browser/browser/internal/cdp"
)

// ScreencastFrame is one JPEG picture of the page. Width and Height are the
// viewport in CSS pixels, so a point on the picture scales to the page.
type ScreencastFrame struct {
	JPEG          []byte
	Width, Height float64
}

// Screencast sends frames of the page to fn until ctx ends, then stops the
// screencast. fn runs on its own goroutine, one frame at a time; a slow fn
// slows the frame rate rather than queueing pictures.
func (p *Page) Screencast(ctx context.Context, fn func(ScreencastFrame)) error {
	s := p.t.s
	frames, stop := s.Subscribe(page.ScreencastFrame.Method)
	defer stop()
	if _, err := cdp.Call(ctx, s, page.StartScreencast, page.StartScreencastParams{
		Format: page.StartScreencastFormatJpeg, Quality: ptr(int64(60)), MaxWidth: 1600, MaxHeight: 1600,
	}); err != nil {
		return fmt.Errorf("starting the screencast: %w", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		_, _ = cdp.Call(cctx, s, page.StopScreencast, cdp.Empty{})
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.Done():
			return fmt.Errorf("%w: page closed", ErrFrameGone)
		case raw, ok := <-frames:
			if !ok {
				return fmt.Errorf("%w: page closed", ErrFrameGone)
			}
			ev, ok := cdpconn.Decode[page.EventScreencastFrame](raw)
			if !ok || ev.Metadata == nil {
				continue
			}
			_, _ = cdp.Call(ctx, s, page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: ev.SessionID})
			fn(ScreencastFrame{JPEG: ev.Data, Width: ev.Metadata.DeviceWidth, Height: ev.Metadata.DeviceHeight})
		}
	}
}
