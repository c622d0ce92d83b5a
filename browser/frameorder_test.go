package browser_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFramesInDocumentOrder: a page's sibling frames are listed in the
// order the document holds them, out-of-process or not, every time: the
// snapshot the model reads follows this list, so the same page must read
// the same way twice (frame ids are random, and were the order).
func TestFramesInDocumentOrder(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	want := []string{"http://other.test/s1", "http://company.test/s2", "http://third.test/s3", "http://company.test/s4"}
	for round := range 3 {
		p := chromium.NewPage(t)
		if _, err := p.Navigate(ctx, "http://company.test/siblings"); err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			got = got[:0]
			for _, f := range p.Frames()[1:] {
				got = append(got, f.URL)
			}
			if len(got) == len(want) && !slices.Contains(got, "") && !slices.ContainsFunc(got, func(u string) bool { return strings.HasPrefix(u, "about:") }) {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("round %d: the four iframes never loaded: %q", round, got)
			case <-time.After(20 * time.Millisecond):
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("round %d: frames %q, want document order %q", round, got, want)
		}
	}
}
