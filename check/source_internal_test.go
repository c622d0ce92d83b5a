package check

import (
	"strings"
	"testing"
)

// TestSourceLine: an element's start tag, as a report shows it, is found
// at its line of the served HTML; a tag a script made, or one of several
// alike, has none.
func TestSourceLine(t *testing.T) {
	src := `<!doctype html>
<html><body>
<form id="pay" action="/pay" method="post">
  <input name="amount" value="40">
  <button type="submit"
          id="pay-button">Pay</button>
  <button type="button">Help</button>
  <button type="button">Terms</button>
  <a href="#" class="x y">one</a>
</form>
</body></html>`
	for _, tc := range []struct {
		tag  string
		want int
	}{
		{`<form id="pay" action="/pay" method="post">`, 3},
		{`<form id="pay" action="/pay" method="post" data-poppy-user-step="submission">`, 3}, // a script added the mark
		{`<input name="amount" value="…">`, 4},
		{`<button type="submit" id="pay-button">`, 5},
		{`<button type="button">`, 0}, // two alike
		{`<a href="#" class="x y">`, 9},
		{`<a href="#" class="` + strings.Repeat("z", 200) + `…`, 0},
		{`<div id="made-by-script">`, 0},
		{`not a tag`, 0},
		{``, 0},
	} {
		if got := sourceLine([]byte(src), tc.tag); got != tc.want {
			t.Errorf("%q: line %d, want %d", tc.tag, got, tc.want)
		}
	}
}

func FuzzSourceLine(f *testing.F) {
	f.Add([]byte("<p>\n<a id=x>"), `<a id="x">`)
	f.Add([]byte("<div\n class=a>"), `<div class="a…`)
	f.Fuzz(func(t *testing.T, src []byte, tag string) {
		n := sourceLine(src, tag)
		if n < 0 || n > strings.Count(string(src), "\n")+1 {
			t.Errorf("line %d of a %d-line source", n, strings.Count(string(src), "\n")+1)
		}
	})
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("pages: [https://a.test/]\ncrawl: 5\nexclude: [\"/x/*\"]\n"))
	f.Add([]byte("flags: [--fill]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig("poppy-check.yaml", data, func(name string) bool { return name == "crawl" || name == "exclude" })
		if err == nil && cfg == nil {
			t.Error("no config and no error")
		}
	})
}
