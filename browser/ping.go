package browser

import (
	"context"
	"fmt"
)

// Ping asks the browser for its version: it answers within ctx while the
// connection to it (a pool's included) works. A connection that is open
// but carries no answer (a pool's host gone without closing it) fails
// here while Gone still says nil.
func (b *Browser) Ping(ctx context.Context) error {
	if err := b.Gone(); err != nil {
		return err
	}
	if err := b.conn.Root().Call(ctx, "Browser.getVersion", nil, nil); err != nil {
		return fmt.Errorf("the browser did not answer: %w", err)
	}
	return nil
}
