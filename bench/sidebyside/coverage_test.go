package main

import (
	"slices"
	"testing"
)

func TestVisibleBlocks(t *testing.T) {
	for _, c := range []struct {
		name, html string
		want       []string
	}{
		{"paragraphs", `<p>One two</p><p>three</p>`, []string{"One two", "three"}},
		{"alt text", `<p>Look <img alt="a cat"> here</p>`, []string{"Look", "a cat", "here"}},
		{"script and style", `<p>Kept</p><script>var x</script><style>p{}</style>`, []string{"Kept"}},
		{"iframe fallback is never rendered", `<p>Kept</p><iframe>Iframe fallback test</iframe>`, []string{"Kept"}},
		{"a line break parts words", `<p>ipsum<br>dolor</p>`, []string{"ipsum dolor"}},
		{"hidden attribute", `<p>Kept</p><div hidden>Gone</div>`, []string{"Kept"}},
		{"aria-hidden", `<p>Kept</p><div aria-hidden="true">Gone</div>`, []string{"Kept"}},
	} {
		if got := visibleBlocks([]byte(c.html)); !slices.Equal(got, c.want) {
			t.Errorf("%s: visibleBlocks = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestCoverage(t *testing.T) {
	src := []byte(`<p>the quick brown fox jumps over the lazy dog and runs far away now</p><p>a second block here</p>`)
	for _, c := range []struct {
		name, snapshot string
		want           float64
	}{
		{"all text", "- text: the quick brown fox jumps over the lazy dog and runs far away now\n- text: a second block here", 1},
		{"a link inside a run", `- text: the quick [link "brown fox" e3 to /fox] jumps over the lazy dog and runs far away now a second block here`, 1},
		{"one block missing (its short tail is no run)", "- text: a second block here", 0.5},
		{"nothing", "", 0},
	} {
		if got := coverage(src, "page", c.snapshot); got != c.want {
			t.Errorf("%s: coverage = %v, want %v", c.name, got, c.want)
		}
	}
}
