package injector_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/injector"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestAlsoRunsWithinTheSwitch: Options.Also runs in every Company frame
// as part of the switch, before Set returns and within its bound, even
// where the frame's renderer is busy (it is held for both), and never in
// a third party's frame. A failing Also does not fail the switch.
func TestAlsoRunsWithinTheSwitch(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	pages := map[string]string{
		// The page and its ad share a renderer, which the ad keeps busy.
		"www.shop.test/":   `<iframe src="https://ads.shop.test/ad?loop"></iframe><iframe src="https://other.test/f"></iframe>`,
		"ads.shop.test/ad": spinner,
		"other.test/f":     `<p>A third party.</p>`,
	}
	spins := newBeats()
	mux := http.NewServeMux()
	mux.Handle("/", pagesHandler(pages))
	mux.Handle("ads.shop.test/beat", spins)
	var (
		mu    sync.Mutex
		ran   []string // "host controller" of each Also that returned
		fails bool
	)
	also := func(ctx context.Context, f browser.Frame, c spec.Controller) error {
		if err := f.CallNow(ctx, "", `function(c) { window.also = c }`, nil, string(c)); err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		host, _, _ := strings.Cut(strings.TrimPrefix(f.URL, "https://"), "/")
		ran = append(ran, host+" "+string(c))
		if fails {
			return errors.New("the frame's step failed")
		}
		return nil
	}
	b, in := launchWith(t, ctx, injector.Options{Domain: "shop.test", Also: also}, serveTLS(t, mux))
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Navigate(ctx, "https://www.shop.test/"); err != nil {
		t.Fatal(err)
	}
	waitFrame(t, ctx, p, "other.test/f")
	spins.wait(t, ctx, "ads", 0)

	for _, tc := range []struct {
		c     spec.Controller
		fails bool
	}{{spec.ControllerUser, false}, {spec.ControllerAgent, true}} {
		mu.Lock()
		ran, fails = nil, tc.fails
		mu.Unlock()
		start := time.Now()
		if err := in.Set(ctx, tc.c); err != nil {
			t.Fatalf("switching to %s (Also failing: %v): %v", tc.c, tc.fails, err)
		}
		if d := time.Since(start); d > switchBound {
			t.Errorf("switching to %s took %s, over the bound of %s", tc.c, d, switchBound)
		}
		mu.Lock()
		got := slices.Sorted(slices.Values(ran))
		mu.Unlock()
		want := []string{"ads.shop.test " + string(tc.c), "www.shop.test " + string(tc.c)}
		if !slices.Equal(got, want) {
			t.Errorf("switching to %s, Also ran before Set returned in %q, want %q", tc.c, got, want)
		}
	}
}
