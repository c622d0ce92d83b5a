package browser_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
)

// TestCloseWaitsForItsGoroutines: Close returns no error and leaves none of
// the Browser's goroutines running, and a second Close says the same.
func TestCloseWaitsForItsGoroutines(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	before := runtime.NumGoroutine()
	b, err := browser.Launch(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Navigate(ctx, `data:text/html,<iframe src="data:text/html,inner"></iframe>`); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if after := runtime.NumGoroutine(); after > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before Launch, %d after Close:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
	if err := b.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	_, err = p.Navigate(ctx, "about:blank")
	wantErr(t, "a navigation after Close", err, browser.ErrBrowserGone)
}
