package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
)

// Source is the frame's document as the server sent it (the browser's
// copy of the response, before any script ran): what a report maps an
// element's start tag to a line of. It sends no request.
func (f Frame) Source(ctx context.Context) ([]byte, error) {
	if f.t == nil {
		return nil, fmt.Errorf("%w: no frame", ErrFrameGone)
	}
	res, err := cdp.Call(ctx, guarded{f.t, browserSide}, page.GetResourceContent,
		page.GetResourceContentParams{FrameID: cdp.FrameID(f.ID), URL: f.URL})
	if err != nil {
		return nil, fmt.Errorf("reading the document's source: %w", err)
	}
	return res.Content, nil
}
