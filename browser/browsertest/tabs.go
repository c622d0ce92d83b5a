package browsertest

import (
	"context"
	"fmt"

	"github.com/poppy-browser/poppy-browser/browser"
)

// WaitOpened waits until a tab opens in ts after mark ([browser.Tabs.Mark])
// and returns the tabs opened since, or fails when ctx ends first.
func WaitOpened(ctx context.Context, ts *browser.Tabs, mark uint64) ([]browser.Tab, error) {
	for {
		changed := ts.Changed() // before the look: a change between the two is not missed
		if tabs := ts.OpenedSince(mark); len(tabs) > 0 {
			return tabs, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for a tab to open: %w", ctx.Err())
		case <-changed:
		}
	}
}
