package browser_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
)

// TestAttachIsBounded: a --cdp-url whose port accepts connections but
// never answers fails within the attach bound, saying that it queued and
// did not answer, and without the
// URL's query or a token in its path (a browser pool's token travels
// there).
func TestAttachIsBounded(t *testing.T) {
	addr := browsertest.SilentListener(t)
	for _, u := range []string{"http://" + addr + "/?token=pool-secret", "ws://" + addr + "/devtools/browser/x?token=pool-secret",
		"ws://" + addr + "/devtools/browser/pool-secret-3f1c2a9e", "wss://" + addr + "/token/pool-secret", "http://" + addr + "/pool-secret-3f1c2a9e/chromium"} {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		start := time.Now()
		b, err := browser.Launch(ctx, &browser.Options{CDPURL: u, ConnectTimeout: time.Second})
		cancel()
		if err == nil {
			b.Close()
			t.Fatalf("%s: attached to a port that never answers", u)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: failed after %s, want about the 1 s bound", u, d)
		}
		// The port takes connections, as a pool's does while it holds a
		// newcomer in its queue: the error says so and names the bound.
		if !strings.Contains(err.Error(), "queued the connection") || !strings.Contains(err.Error(), "did not answer in 1s") || strings.Contains(err.Error(), "pool-secret") {
			t.Errorf("%s: err = %v, want the bound named and no token", u, err)
		}
	}
}
