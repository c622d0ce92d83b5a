package browser_test

import (
	"context"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
)

// TestInitialPageAttached: attached to a Chromium started on its own,
// InitialPage drives the blank tab that browser already has rather than
// opening one; only when there is no blank tab does it open exactly one.
func TestInitialPageAttached(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	// Its own process group, killed whole and waited for before its
	// profile goes (killing the main process alone left helpers writing it).
	url := browsertest.StartChromium(t, ctx, &browsertest.ChromiumOptions{Args: []string{testHosts.args[0]}}).URL
	b, err := browser.Launch(ctx, &browser.Options{CDPURL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	first, err := b.InitialPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(b.Pages()); n != 1 {
		t.Errorf("%d tabs after InitialPage, want the browser's own one", n)
	}
	// With no blank tab left, InitialPage opens exactly one.
	if _, err := first.Navigate(ctx, "http://company.test/landing"); err != nil {
		t.Fatal(err)
	}
	second, err := b.InitialPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if second == first || len(b.Pages()) != 2 {
		t.Errorf("InitialPage with no blank tab: same tab %v, %d tabs", second == first, len(b.Pages()))
	}
}
