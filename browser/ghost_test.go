package browser_test

import (
	"context"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
)

// TestNoGhostFrames: 50 cycles over a page with nested cross-site iframes
// (each in its own process) and a plain page: the plain page lists only its
// own frame every time, the nested page never more than its own four, a
// call across every frame of the browser reaches exactly those, and the
// browser routes no more CDP sessions after the cycles than before them.
func TestNoGhostFrames(t *testing.T) {
	if testing.Short() {
		t.Skip("50 navigation cycles")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	s := newSite(t)
	s.html("company.test/nest", `<title>nest</title><iframe src="http://other.test/n1"></iframe>`)
	s.html("other.test/n1", `<iframe src="http://company.test/n2"></iframe>`)
	s.html("company.test/n2", `<iframe src="http://third.test/n3"></iframe>`)
	s.html("third.test/n3", `<p>deep</p>`)
	s.html("company.test/plain", `<title>plain</title>`)
	b := launchSite(t, ctx, s, nil)
	p := openPage(t, ctx, b)
	if _, err := p.Navigate(ctx, "http://company.test/plain"); err != nil {
		t.Fatal(err)
	}
	before := browser.SessionCount(b)
	// Enough cycles that a frame, a session or a listener left behind by
	// each would show; how long a cycle takes is a benchmark's business.
	const cycles = 50
	for i := range cycles {
		if _, err := p.Navigate(ctx, "http://company.test/nest"); err != nil {
			t.Fatal(err)
		}
		if n := len(p.Frames()); n > 4 {
			t.Fatalf("cycle %d: the nested page lists %d frames, want at most 4", i, n)
		}
		if _, err := p.Navigate(ctx, "http://company.test/plain"); err != nil {
			t.Fatal(err)
		}
		if fs := p.Frames(); len(fs) != 1 || fs[0].URL != "http://company.test/plain" {
			t.Fatalf("cycle %d: the plain page lists %d frames: %+v", i, len(fs), fs)
		}
	}
	reached := 0
	fails := b.EachFrame(ctx, 5*time.Second, func(context.Context, *browser.Page, browser.Frame) error {
		return nil
	})
	for _, q := range b.Pages() {
		reached += len(q.Frames())
	}
	if len(fails) != 0 || reached != 2 { // the plain page and the browser's first tab
		t.Errorf("after the cycles: %d frames in all, %d failures", reached, len(fails))
	}
	// The out-of-process frames' sessions detach as the browser reports
	// them gone, which may trail the navigation a little.
	waitCtx, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	for browser.SessionCount(b) > before {
		select {
		case <-waitCtx.Done():
			t.Fatalf("after %d cycles the browser routes %d sessions, %d before them: the frames' sessions were not let go", cycles, browser.SessionCount(b), before)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
