package marks_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
)

// matchJS counts what hosts then sel match from the document, in the
// page's own world, and returns the first match's text. One object
// argument: Frame.Call sends no argument for an empty array.
const matchJS = `function({hosts, sel}) {
  let root = document;
  for (const h of hosts) {
    const all = root.querySelectorAll(h);
    if (all.length !== 1 || !all[0].shadowRoot) return {count: -1};
    root = all[0].shadowRoot;
  }
  const all = root.querySelectorAll(sel);
  const el = all[0];
  const text = !el ? "" : el.localName === "input" ? el.labels[0].textContent : el.textContent;
  return {count: all.length, text: text.trim()};
}`

type match struct {
	Count int    `json:"count"`
	Text  string `json:"text"`
}

type query struct {
	Hosts []string `json:"hosts"`
	Sel   string   `json:"sel"`
}

// TestLocate: each selector matches exactly its element, in the document
// and in a shadow root; duplicated ids are not used; a value attribute is
// hidden, control characters are blanked and a long start tag cut.
func TestLocate(t *testing.T) {
	tp, ctx := open(t, "/locate.html")
	s := tp.scan(ctx, t)
	cases := []struct {
		target   string // role and name in the scan
		selector string
		hosts    []string
		html     string
	}{
		{"button Pay", "html > body > div:nth-of-type(2) > p:nth-of-type(2) > button:nth-of-type(1)", nil, `<button type="button">`},
		{"button Later", "html > body > div:nth-of-type(2) > p:nth-of-type(2) > button:nth-of-type(2)", nil, `<button type="button">`},
		{"textbox Card number", "#card > label > input", nil, `<input name="card" value="…">`},
		{"button Inner", ":host > div:nth-of-type(1) > span > button", []string{"html > body > x-host"}, `<button type="button">`},
		{"button Inner two", ":host > div:nth-of-type(2) > span > button", []string{"html > body > x-host"}, `<button type="button">`},
		{"button Escapes", "html > body > p:nth-of-type(1) > button", nil, `<button type="button" title="a [31mred line">`},
	}
	ids := make([]int, len(cases))
	for i, c := range cases {
		ids[i] = tp.id(ctx, t, s, c.target)
	}
	long := tp.id(ctx, t, s, "button Long")
	got, err := marks.Locate(ctx, tp.frame, append(ids, long))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		l := got[ids[i]]
		if l.Selector != c.selector || strings.Join(l.Hosts, "|") != strings.Join(c.hosts, "|") || l.HTML != c.html {
			t.Errorf("%s: located %+v, want selector %q hosts %q html %q", c.target, l, c.selector, c.hosts, c.html)
		}
		var m match
		if err := tp.frame.Call(ctx, "", matchJS, &m, query{Hosts: append([]string{}, l.Hosts...), Sel: l.Selector}); err != nil {
			t.Fatal(err)
		}
		if _, name, _ := strings.Cut(c.target, " "); m.Count != 1 || m.Text != name {
			t.Errorf("%s: selector %q matches %d elements (first %q), want exactly the one", c.target, l.Selector, m.Count, m.Text)
		}
	}
	if h := got[long].HTML; len([]rune(h)) != 200 || !strings.HasPrefix(h, `<button type="button" data-note="aaa`) || !strings.HasSuffix(h, "…") {
		t.Errorf("long start tag: %q (%d characters), want it cut to 200 ending with …", h, len([]rune(h)))
	}
}

// TestLocateFrame: the element holding a frame, cross-origin (out of
// process) and inside a shadow root.
func TestLocateFrame(t *testing.T) {
	tp, ctx := open(t, "/locate.html")
	want := map[string]marks.Location{
		"http://other.test/locate-frame.html": {Selector: "html > body > iframe", Hosts: []string{}, HTML: `<iframe title="Other" src="http://other.test/locate-frame.html">`},
		"http://marks.test/locate-frame.html": {Selector: ":host > iframe", Hosts: []string{"html > body > x-host"}, HTML: `<iframe title="Shadowed" src="/locate-frame.html">`},
	}
	frames := waitFrames(ctx, t, tp.p, len(want)+1)
	for _, f := range frames {
		if f.ParentID == "" {
			continue
		}
		w, ok := want[f.URL]
		if !ok {
			t.Errorf("unexpected frame %s", f.URL)
			continue
		}
		got, found, err := marks.LocateFrame(ctx, tp.frame, f)
		if err != nil || !found {
			t.Fatalf("LocateFrame(%s): %+v %v %v", f.URL, got, found, err)
		}
		if got.Selector != w.Selector || strings.Join(got.Hosts, "|") != strings.Join(w.Hosts, "|") || got.HTML != w.HTML {
			t.Errorf("frame %s: located %+v, want %+v", f.URL, got, w)
		}
	}
	if _, found, err := marks.LocateFrame(ctx, tp.frame, tp.frame); err != nil || found {
		t.Errorf("LocateFrame of the top frame: found %v, %v; want not found", found, err)
	}
}

// waitFrames waits until the page lists n frames with a document loaded.
func waitFrames(ctx context.Context, t *testing.T, p *browser.Page, n int) []browser.Frame {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		fs := p.Frames()
		ready := 0
		for _, f := range fs {
			if strings.HasSuffix(f.URL, ".html") || strings.Contains(f.URL, "/locate.html") {
				ready++
			}
		}
		if ready >= n {
			return fs
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %d frames with documents: have %d", n, len(fs))
		case <-tick.C:
		}
	}
}
