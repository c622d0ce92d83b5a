package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
)

// MaxScreenshotHeight bounds a [Page.Screenshot] of a long page, in CSS pixels.
const MaxScreenshotHeight = 4000

// Screenshot is a PNG picture of the top document from its top left corner,
// the whole width and at most [MaxScreenshotHeight] CSS pixels of its height.
// ScrollX and ScrollY are where the viewport was scrolled when it was taken,
// so a box in viewport coordinates plus the scroll is a point on the picture.
type Screenshot struct {
	PNG              []byte
	Width, Height    float64 // CSS pixels; one CSS pixel is one picture pixel
	ScrollX, ScrollY float64
	// ViewWidth and ViewHeight are the viewport's size, CSS pixels.
	ViewWidth, ViewHeight float64
}

// Screenshot takes a picture of the page, frames included. It does not
// scroll the page.
func (p *Page) Screenshot(ctx context.Context) (Screenshot, error) {
	s := p.t.main()
	m, err := cdp.Call(ctx, s, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil {
		return Screenshot{}, fmt.Errorf("taking a screenshot: %w", err)
	}
	var shot Screenshot
	if m.CSSVisualViewport != nil {
		shot.ScrollX, shot.ScrollY = m.CSSVisualViewport.PageX, m.CSSVisualViewport.PageY
		shot.Width, shot.Height = m.CSSVisualViewport.ClientWidth, m.CSSVisualViewport.ClientHeight
		shot.ViewWidth, shot.ViewHeight = shot.Width, shot.Height
	}
	if c := m.CSSContentSize; c != nil && c.Width > 0 && c.Height > 0 {
		shot.Width, shot.Height = c.Width, min(c.Height, MaxScreenshotHeight)
	}
	res, err := cdp.Call(ctx, s, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format:                page.CaptureScreenshotFormatPng,
		Clip:                  &page.Viewport{X: 0, Y: 0, Width: shot.Width, Height: shot.Height, Scale: 1},
		CaptureBeyondViewport: ptr(true),
	})
	if err != nil {
		return Screenshot{}, fmt.Errorf("taking a screenshot: %w", err)
	}
	shot.PNG = res.Data
	return shot, nil
}

// setViewport makes the tab's viewport width x height CSS pixels (device
// scale 1, not mobile), as a window of that size would. Only tests resize
// (through browsertest): the runtime's sizes are the agent's and the User's
// device's (EmulateDevice).
func (p *Page) setViewport(ctx context.Context, width, height int) error {
	if err := p.t.call(ctx, mainThread, emulation.CommandSetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(width), Height: int64(height), DeviceScaleFactor: 1,
	}, nil); err != nil {
		return fmt.Errorf("setting the viewport: %w", err)
	}
	return nil
}
