package browser

import (
	"context"
	"fmt"
	"time"

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
	// A page that does not repaint may send no frame at all: its first
	// picture is then taken as a screenshot of what it shows.
	first := time.NewTimer(firstFrameWait)
	defer first.Stop()
	framed := false
	for {
		select {
		case <-first.C:
			if !framed {
				pctx, cancel := context.WithTimeout(ctx, cleanupTimeout)
				if f, err := p.viewportPicture(pctx); err == nil {
					fn(f)
				}
				cancel()
			}
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
			framed = true
			_, _ = cdp.Call(ctx, s, page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: ev.SessionID})
			fn(ScreencastFrame{JPEG: ev.Data, Width: ev.Metadata.DeviceWidth, Height: ev.Metadata.DeviceHeight})
		}
	}
}

// firstFrameWait is how long a new screencast waits for Chromium's first
// frame before it takes one itself.
const firstFrameWait = time.Second

// viewportPicture is a screencast frame of what the page shows now, taken
// as a screenshot of its visual viewport.
func (p *Page) viewportPicture(ctx context.Context) (ScreencastFrame, error) {
	s := p.t.main()
	m, err := cdp.Call(ctx, s, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil || m.CSSVisualViewport == nil {
		return ScreencastFrame{}, fmt.Errorf("reading the viewport: %w", err)
	}
	shot, err := cdp.Call(ctx, s, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatJpeg, Quality: ptr(int64(60)),
	})
	if err != nil {
		return ScreencastFrame{}, fmt.Errorf("taking the first picture: %w", err)
	}
	return ScreencastFrame{JPEG: shot.Data, Width: m.CSSVisualViewport.ClientWidth, Height: m.CSSVisualViewport.ClientHeight}, nil
}
