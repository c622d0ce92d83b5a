package browser_test

import (
	"context"
	"testing"
	"time"
)

// TestSameDocumentNavigation: a navigation to a fragment of the page stays
// in its document and returns at once.
func TestSameDocumentNavigation(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	p := chromium.NewPage(t)
	if _, err := p.Navigate(ctx, "http://company.test/fragments"); err != nil {
		t.Fatal(err)
	}
	doc := p.Document()
	r, err := p.Navigate(ctx, "http://company.test/fragments#part")
	if err != nil || !r.Loaded || r.URL != "http://company.test/fragments#part" {
		t.Fatalf("Navigate to a fragment = %+v, %v; want the fragment's URL, loaded", r, err)
	}
	if p.Document() != doc {
		t.Error("a fragment navigation replaced the document")
	}
}
