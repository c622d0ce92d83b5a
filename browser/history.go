package browser

import (
	"context"
	"errors"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
)

// Back goes one step back in the page's history and waits until the
// entry it goes to has loaded, bounded as [Page.Navigate].
func (p *Page) Back(ctx context.Context) (NavResult, error) { return p.historyStep(ctx, -1) }

// Forward goes one step forward in the page's history and waits until
// the entry it goes to has loaded.
func (p *Page) Forward(ctx context.Context) (NavResult, error) { return p.historyStep(ctx, 1) }

// historyStep goes delta entries through the history. It waits for the
// entry's URL in a document other than the one it left (or, for a step
// within one document, for the URL alone): the history call answers
// before the navigation commits, and the page it leaves is loaded too.
func (p *Page) historyStep(ctx context.Context, delta int64) (NavResult, error) {
	what := "going back"
	if delta > 0 {
		what = "going forward"
	}
	h, err := cdp.Call(ctx, guarded{p.t, browserSide}, page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return NavResult{}, fmt.Errorf("%s: %w", what, err)
	}
	i := h.CurrentIndex + delta
	if i < 0 || i >= int64(len(h.Entries)) {
		if delta < 0 {
			return NavResult{}, fmt.Errorf("going back: no earlier page: %w", ErrNoHistory)
		}
		return NavResult{}, fmt.Errorf("going forward: no later page: %w", ErrNoHistory)
	}
	leftDoc, leftURL := p.Document(), p.URL()
	want := h.Entries[i].URL
	p.t.stopScript(ctx) // a busy page must not hold its own departure
	if err := p.t.call(ctx, navigation, page.CommandNavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: h.Entries[i].ID}, nil); err != nil {
		return NavResult{}, fmt.Errorf("%s: %w", what, err)
	}
	wctx, cancel := context.WithTimeout(ctx, p.b.loadTimeout())
	defer cancel()
	r, err := p.WaitLoaded(wctx, func(url string) bool {
		return p.Document() != leftDoc || url == want && url != leftURL
	})
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return r, nil // a page that never finishes loading: where it is now
	}
	if err != nil {
		return r, fmt.Errorf("%s: %w", what, err)
	}
	return r, nil
}
