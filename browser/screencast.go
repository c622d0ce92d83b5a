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
// viewport in CSS pixels, so a point on the picture scales to the page;
// the picture itself may have more pixels (a device's pixel ratio).
type ScreencastFrame struct {
	JPEG          []byte
	Width, Height float64
}

// Bounds of a sharp frame (see Screencast): at most this many device
// pixels per CSS pixel, and this many pixels on its longer side, so a
// phone's frames stay within a phone connection's means.
const (
	MaxFrameScale = 3
	MaxFrameSide  = 2560
)

// Screencast sends frames of the page to fn until ctx ends, then stops the
// screencast. fn runs on its own goroutine, one frame at a time; a slow fn
// slows the frame rate rather than queueing pictures.
//
// Chromium's screencast draws at the browser window's own pixel ratio,
// whatever device the page is shown on (EmulateDevice): a 3x phone's page
// comes at 1x. So while the page is shown on a device whose pixel ratio is
// above 1, each frame the screencast announces (a repaint) is taken again
// as a screenshot of the visual viewport at that ratio, bounded by
// MaxFrameScale and MaxFrameSide.
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
				if f, err := p.viewportPicture(pctx, 0, 0); err == nil {
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
			f := ScreencastFrame{JPEG: ev.Data, Width: ev.Metadata.DeviceWidth, Height: ev.Metadata.DeviceHeight}
			if p.frameScale() > 1 {
				// Acknowledged after the sharp picture: the screencast
				// waits for it, so repaints are not queued behind it.
				pctx, cancel := context.WithTimeout(ctx, cleanupTimeout)
				if sharp, err := p.viewportPicture(pctx, f.Width, f.Height); err == nil {
					f.JPEG = sharp.JPEG
				}
				cancel()
			}
			_, _ = cdp.Call(ctx, s, page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: ev.SessionID})
			fn(f)
		}
	}
}

// frameScale is the pixel ratio of the device the page is shown on (0 on
// the browser's own screen).
func (p *Page) frameScale() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.shownScale
}

// pictureScale is the device pixels per CSS pixel of a picture of a w x h
// viewport on a screen of pixel ratio dpr, within MaxFrameScale and
// MaxFrameSide (and never below 1).
func pictureScale(dpr, w, h float64) float64 {
	k := min(max(dpr, 1), MaxFrameScale)
	if side := max(w, h) * k; side > MaxFrameSide {
		k = max(1, k*MaxFrameSide/side)
	}
	return k
}

// firstFrameWait is how long a new screencast waits for Chromium's first
// frame before it takes one itself.
const firstFrameWait = time.Second

// viewportPicture is a screencast frame of what the page shows now, taken
// as a screenshot of its visual viewport, at the shown device's pixel
// ratio within the bounds (pictureScale). w and h are the viewport's size
// as the screencast gives it (the device's screen, in CSS pixels); 0 means
// the visual viewport's.
func (p *Page) viewportPicture(ctx context.Context, w, h float64) (ScreencastFrame, error) {
	s := p.t.main()
	p.screen.Lock()
	defer p.screen.Unlock()
	m, err := cdp.Call(ctx, s, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil || m.CSSVisualViewport == nil {
		return ScreencastFrame{}, fmt.Errorf("reading the viewport: %w", err)
	}
	vv := m.CSSVisualViewport
	if w <= 0 || h <= 0 {
		w, h = vv.ClientWidth, vv.ClientHeight
	}
	params := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatJpeg, Quality: ptr(int64(60))}
	if dpr := p.frameScale(); dpr > 0 && vv.ClientWidth > 0 && pictureScale(dpr, w, h) != dpr {
		// The picture is the clip's CSS size times its scale times the
		// device's ratio: w x h at pictureScale pixels each.
		params.Clip = &page.Viewport{X: vv.PageX, Y: vv.PageY, Width: vv.ClientWidth, Height: vv.ClientHeight,
			Scale: w * pictureScale(dpr, w, h) / (vv.ClientWidth * dpr)}
	}
	shot, err := cdp.Call(ctx, s, page.CaptureScreenshot, params)
	if err != nil {
		return ScreencastFrame{}, fmt.Errorf("taking the first picture: %w", err)
	}
	return ScreencastFrame{JPEG: shot.Data, Width: w, Height: h}, nil
}
