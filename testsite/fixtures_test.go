package testsite

import (
	"regexp"
	"strings"
	"testing"
)

// TestGeneratedPages checks the sizes the benchmarks of issue 3 promise.
func TestGeneratedPages(t *testing.T) {
	open := regexp.MustCompile(`<[a-z][a-z0-9]*[\s>]`)
	const frame = 7 // html, head, meta, title, link, body, h1
	for _, rich := range []bool{true, false} {
		if got := len(open.FindAllString(elementsPage(BigPageElements, rich), -1)) - frame; got != BigPageElements {
			t.Errorf("elementsPage(rich=%v) has %d elements, want %d", rich, got, BigPageElements)
		}
		page := buttonsPage(ButtonsPageSize, rich)
		if got := strings.Count(page, "<button "); got != ButtonsPageSize {
			t.Errorf("buttonsPage(rich=%v) has %d buttons, want %d", rich, got, ButtonsPageSize)
		}
		if got := strings.Count(page, `data-poppy-user-step="submission"`); got != ButtonsPageSize/24/5 {
			t.Errorf("buttonsPage(rich=%v) has %d marked forms, want %d", rich, got, ButtonsPageSize/24/5)
		}
	}
}
