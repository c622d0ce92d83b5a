package browser

import (
	"context"
	"fmt"
	"math"
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

// MaxFrameSide bounds a screencast frame's width and height, in picture
// pixels: a phone's page at [MaxFrameScale] (390x844 CSS px: 780x1688)
// whole; a larger picture is scaled down to fit.
const MaxFrameSide = 1920

// Screencast sends frames of the page to fn until ctx ends, then stops the
// screencast. Frames are drawn at the page's window scale: 1 for the
// browser's own window, up to [MaxFrameScale] while the page is shown on a
// device ([Browser.EmulateDevice]). fn runs on its own goroutine, one frame at a time; a slow fn
// slows the frame rate rather than queueing pictures.
func (p *Page) Screencast(ctx context.Context, fn func(ScreencastFrame)) error {
	s := p.t.s
	frames, stop := s.Subscribe(page.ScreencastFrame.Method)
	defer stop()
	start := func() error {
		_, err := cdp.Call(ctx, s, page.StartScreencast, page.StartScreencastParams{
			Format: page.StartScreencastFormatJpeg, Quality: ptr(int64(60)), MaxWidth: MaxFrameSide, MaxHeight: MaxFrameSide,
		})
		return err
	}
	end := func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		_, _ = cdp.Call(cctx, s, page.StopScreencast, cdp.Empty{})
	}
	if err := start(); err != nil {
		return fmt.Errorf("starting the screencast: %w", err)
	}
	defer end()
	// A page that does not repaint may send no frame at all: its first
	// picture is then taken as a screenshot of what it shows.
	first := time.NewTimer(firstFrameWait)
	defer first.Stop()
	framed := false
	dropped := 0 // stale pictures since the last one shown
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
			_, _ = cdp.Call(ctx, s, page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: ev.SessionID})
			w, h := ev.Metadata.DeviceWidth, ev.Metadata.DeviceHeight
			if !sameShape(ev.Data, w, h) || (dropped < maxStaleDrops && belowScale(ev.Data, w, h, p.windowScale())) {
				// Just after the page's size or its window's screen
				// changed, Chromium may send a picture captured at the old
				// surface's size with the new size's label: stretched, or
				// of the right shape at a lower scale (1280x525 for 844x346
				// on a 2x screen: blurry). A page that does not repaint
				// sends no next frame, so a new screencast, which starts
				// at the surface's size with a frame, takes its place.
				if dropped < maxStaleDrops {
					dropped++
					end()
					if err := start(); err != nil {
						return fmt.Errorf("starting the screencast again: %w", err)
					}
				}
				continue
			}
			dropped = 0
			framed = true
			w, h = frameViewport(ev.Metadata)
			fn(ScreencastFrame{JPEG: ev.Data, Width: w, Height: h})
		}
	}
}

// frameViewport is the CSS size of the visual viewport a frame shows: its
// device size (DIPs) over the page's scale. A page shown zoomed out (a
// phone showing a page wider than its screen, or laid out for desktops
// only) has more CSS pixels than the screen has DIPs, and input
// coordinates (Input.dispatchMouseEvent, dispatchTouchEvent) are CSS
// pixels of that viewport: a point on the picture scales to them only
// by this size.
func frameViewport(m *page.ScreencastFrameMetadata) (w, h float64) {
	k := m.PageScaleFactor
	if !(k > 0) || math.IsInf(k, 0) {
		k = 1
	}
	return m.DeviceWidth / k, m.DeviceHeight / k
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

// maxStaleDrops bounds the new screencasts started in a row for stale
// pictures, and the pictures below the window's scale dropped: a browser
// that keeps drawing below it still shows the page.
const maxStaleDrops = 3

// belowScale reports whether a JPEG picture has fewer pixels than the
// surface it says it shows, cssW x cssH DIPs on a screen of scale k
// (fitted into MaxFrameSide): it was captured at an older, smaller
// surface's size. A picture whose size cannot be read passes.
func belowScale(jpeg []byte, cssW, cssH, k float64) bool {
	w, _ := jpegSize(jpeg)
	if w == 0 || cssW <= 0 || cssH <= 0 {
		return false
	}
	fit := min(k, MaxFrameSide/cssW, MaxFrameSide/cssH) // picture pixels per DIP
	return float64(w) < 0.98*cssW*fit
}

// sameShape reports whether a JPEG picture has the shape (width over
// height, within 2%) of the CSS size it says it shows. A picture whose
// size cannot be read passes.
func sameShape(jpeg []byte, cssW, cssH float64) bool {
	w, h := jpegSize(jpeg)
	if w == 0 || h == 0 || cssW <= 0 || cssH <= 0 {
		return true
	}
	want := cssW / cssH
	return math.Abs(float64(w)/float64(h)-want) <= 0.02*want
}

// jpegSize reads a JPEG's size from its frame header (SOF0 to SOF2), or
// 0, 0.
func jpegSize(b []byte) (w, h int) {
	i := 2 // past SOI
	for i+9 <= len(b) {
		if b[i] != 0xFF {
			return 0, 0
		}
		marker := b[i+1]
		if marker == 0xFF { // fill byte
			i++
			continue
		}
		n := int(b[i+2])<<8 | int(b[i+3])
		if marker >= 0xC0 && marker <= 0xC2 {
			return int(b[i+7])<<8 | int(b[i+8]), int(b[i+5])<<8 | int(b[i+6])
		}
		i += 2 + n
	}
	return 0, 0
}
