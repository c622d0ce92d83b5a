package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/target"
)

// Close closes the tab and disposes of the browser context that
// [Browser.NewPage] made for it (its cookies and storage).
func (p *Page) Close(ctx context.Context) error {
	if err := p.b.conn.Root().Call(ctx, target.CommandCloseTarget, target.CloseTargetParams{TargetID: p.t.s.TargetID()}, nil); err != nil && !isGone(err) {
		return fmt.Errorf("closing the page: %w", err)
	}
	if p.browserContext != "" {
		if err := p.b.conn.Root().Call(ctx, target.CommandDisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: p.browserContext}, nil); err != nil && !isGone(err) {
			return fmt.Errorf("closing the page: %w", err)
		}
	}
	return nil
}
