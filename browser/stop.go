package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/page"
)

// StopLoading stops every navigation of the page in flight, as the
// browser's stop button does: a document that has not committed yet never
// does. The User's take of control uses it to end an agent's navigation.
func (p *Page) StopLoading(ctx context.Context) error {
	if err := p.t.call(ctx, browserSide, page.CommandStopLoading, nil, nil); err != nil {
		return fmt.Errorf("stopping the page's loading: %w", err)
	}
	return nil
}
