package check_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/check"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// locatePages are the pages of TestLocate: findings in the top document, in
// a Company frame, in an open shadow root, on a mark, a page without marks
// but with a passport field, and a page that cannot be checked.
func locatePages() (urls []string, missing string) {
	fx := testsite.CheckFixtureURLs()
	missing = "https://" + testsite.CompanyDomain + "/fixtures/check/no-such-page"
	return []string{fx["escape-submit"], fx["frame-marks"], fx["shadow-marks"], fx["unknown-value"],
		"https://" + testsite.CompanyDomain + "/fixtures/check-in-unmarked", missing}, missing
}

// TestLocate checks that every element-level finding points at its element:
// its selector (after its frame selectors and shadow hosts) matches exactly
// one element in a fresh load of the page, the one the finding names, and
// its box on the screenshot is where that element is; then that the HTML
// report outlines it and fits a desktop and a phone.
func TestLocate(t *testing.T) {
	c := newChecker(t, check.Options{Watch: time.Second})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	urls, missing := locatePages()
	rep, err := c.Run(ctx, urls)
	if err != nil {
		t.Fatal(err)
	}
	located := 0
	for _, p := range rep.Pages {
		if p.URL == missing {
			continue
		}
		if p.Status != check.StatusChecked {
			t.Fatalf("%s: %s: %s", p.URL, p.Status, p.Error)
		}
		// The frame-marks fixture's frame throws (its script expects a Help
		// button the frame does not have): not what this test is about.
		page := env.browser.NewPageWith(t, browsertest.PageOptions{AllowExceptions: true})
		lctx, lcancel := context.WithTimeout(ctx, 30*time.Second)
		if _, err := page.Navigate(lctx, p.URL); err != nil {
			t.Fatalf("loading %s (waited up to 30 s): %v", p.URL, err)
		}
		lcancel()
		for _, f := range p.Findings {
			if f.Element == "" {
				continue
			}
			located++
			t.Run(pathName(p.URL)+"/"+f.Element, func(t *testing.T) { checkLocation(t, ctx, page, f) })
		}
	}
	if located < 8 {
		t.Errorf("only %d element-level findings on the pages, want at least 8", located)
	}
	t.Run("suggestion", func(t *testing.T) {
		var got []string
		for _, f := range rep.Pages[4].Findings {
			got = append(got, string(f.Severity)+" "+f.Message)
		}
		want := `info The page has no marks, but textbox "Passport number" looks like a passport or identity document.`
		if len(got) == 0 || !strings.HasPrefix(got[0], want) {
			t.Errorf("unmarked check-in page: findings %q, want first %q...", got, want)
		}
	})
	t.Run("could not check", func(t *testing.T) {
		p := rep.Pages[5]
		if p.Status != check.StatusFailed || len(p.Findings) != 0 {
			t.Errorf("missing page: status %s, %d findings; want failed with none", p.Status, len(p.Findings))
		}
		errs := 0
		for _, q := range rep.Pages[:5] {
			for _, f := range q.Findings {
				if f.Severity == check.Error {
					errs++
				}
			}
		}
		if rep.Counts.Error != errs+1 || rep.Failed != 1 {
			t.Errorf("counts %+v failed %d; want %d errors (the pages' %d and one for the page that could not be checked), 1 failed", rep.Counts, rep.Failed, errs+1, errs)
		}
		var text bytes.Buffer
		if err := rep.WriteText(&text, check.Error); err != nil {
			t.Fatal(err)
		}
		if want := `could not check: loading the page: HTTP 404`; !strings.Contains(text.String(), want) {
			t.Errorf("terminal output lacks %q:\n%s", want, text.String())
		}
		if want := "at #quick\n          <button type=\"button\" id=\"quick\">\n"; !strings.Contains(text.String(), want) {
			t.Errorf("terminal output lacks the escape route's selector and start tag %q:\n%s", want, text.String())
		}
	})
	t.Run("html", func(t *testing.T) { renderReport(t, ctx, rep) })
}

var nonWord = regexp.MustCompile(`[^A-Za-z0-9-]+`)

func pathName(u string) string { return nonWord.ReplaceAllString(u[strings.LastIndex(u, "/")+1:], "_") }

// found is what the test reads, in the page's own world, of the elements a
// finding's selectors match.
type found struct {
	Count  int     `json:"count"`
	Frame  string  `json:"frame"` // an iframe's src
	Tag    string  `json:"tag"`
	ID     string  `json:"id"`
	Names  string  `json:"names"` // text, labels, aria-label, id and name attribute
	X      float64 `json:"x"`     // the element's box in page coordinates
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// matchJS queries hosts then sel from the document, returning how many
// elements sel matches and what the test needs of the first. Its argument
// is one object: Frame.Call leaves out an argument that is an empty array.
const matchJS = `function({hosts, sel}) {
  let root = document;
  for (const h of hosts) {
    const all = root.querySelectorAll(h);
    if (all.length !== 1 || !all[0].shadowRoot) return {count: -1};
    root = all[0].shadowRoot;
  }
  const all = root.querySelectorAll(sel);
  if (all.length === 0) return {count: 0};
  const el = all[0], r = el.getBoundingClientRect();
  const names = [el.textContent, el.getAttribute("aria-label"), el.id, el.getAttribute("name"),
    ...Array.from(el.labels || [], (l) => l.textContent)].filter(Boolean).join(" | ");
  return {count: all.length, frame: el.src || "", tag: el.localName, id: el.id, names,
    x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height};
}`

type query struct {
	Hosts []string `json:"hosts"`
	Sel   string   `json:"sel"`
}

func checkLocation(t *testing.T, ctx context.Context, p *browser.Page, f check.Finding) {
	if f.Selector == "" || f.HTML == "" {
		t.Fatalf("finding has no selector or html: %+v", f)
	}
	if n := len([]rune(f.HTML)); n > 200 || !strings.HasPrefix(f.HTML, "<") {
		t.Errorf("html %q: want a start tag of at most 200 characters, got %d", f.HTML, n)
	}
	frame := p.MainFrame()
	for _, fs := range f.FrameSelectors {
		var got found
		if err := frame.Call(ctx, "", matchJS, &got, query{Hosts: []string{}, Sel: fs}); err != nil {
			t.Fatal(err)
		}
		if got.Count != 1 || got.Tag != "iframe" {
			t.Fatalf("frame selector %q matches %d elements (%s), want one iframe", fs, got.Count, got.Tag)
		}
		next, ok := frameByURL(p, frame, got.Frame)
		if !ok {
			t.Fatalf("no frame at %s under %s", got.Frame, frame.URL)
		}
		frame = next
	}
	if frame.URL != f.Frame {
		t.Errorf("frame selectors %q lead to %s, want the finding's frame %s", f.FrameSelectors, frame.URL, f.Frame)
	}
	var got found
	if err := frame.Call(ctx, "", matchJS, &got, query{Hosts: append([]string{}, f.ShadowHosts...), Sel: f.Selector}); err != nil {
		t.Fatal(err)
	}
	if got.Count != 1 {
		t.Fatalf("selector %q (hosts %q) matches %d elements, want exactly one", f.Selector, f.ShadowHosts, got.Count)
	}
	// The right one: the tag and id of the start tag, and the name the
	// finding gives it.
	if !strings.HasPrefix(f.HTML, "<"+got.Tag) || (got.ID != "" && !strings.Contains(f.HTML, `id="`+got.ID+`"`)) {
		t.Errorf("selector %q matches <%s id=%q>, but the finding's html is %s", f.Selector, got.Tag, got.ID, f.HTML)
	}
	if name := quotedName(f.Element); name != "" && !strings.Contains(got.Names, name) {
		t.Errorf("selector %q matches an element named %q, but the finding names %s", f.Selector, got.Names, f.Element)
	}
	// The outline: where the element is on the top document's page.
	if f.Box != nil && len(f.FrameSelectors) == 0 && len(f.ShadowHosts) == 0 {
		if math.Abs(f.Box.X-got.X) > 2 || math.Abs(f.Box.Y-got.Y) > 2 || math.Abs(f.Box.Width-got.Width) > 2 {
			t.Errorf("box %+v, but the element is at %+v", *f.Box, got)
		}
	}
}

// frameByURL is the child frame of parent at url.
func frameByURL(p *browser.Page, parent browser.Frame, url string) (browser.Frame, bool) {
	for _, f := range p.Frames() {
		if f.ParentID == parent.ID && f.URL == url {
			return f, true
		}
	}
	return browser.Frame{}, false
}

var quoted = regexp.MustCompile(`"([^"]*)"`)

func quotedName(el string) string {
	if m := quoted.FindStringSubmatch(el); m != nil {
		return m[1]
	}
	return ""
}

// renderReport opens the HTML report in Chromium at a desktop and a phone
// width, saves screenshots to the test's artifact directory, and checks
// that nothing scrolls sideways and that the escape route's button is
// outlined on the screenshot.
func renderReport(t *testing.T, ctx context.Context, rep *check.Report) {
	var buf bytes.Buffer
	if err := rep.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, size := range []struct {
		name          string
		width, height int
	}{{"desktop", 1280, 800}, {"phone", 390, 844}} {
		t.Run(size.name, func(t *testing.T) {
			p := env.browser.NewPage(t)
			if err := browsertest.SetViewport(ctx, p, size.width, size.height); err != nil {
				t.Fatal(err)
			}
			lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			if _, err := p.Navigate(lctx, "file://"+path); err != nil {
				t.Fatalf("opening the report (waited up to 30 s): %v", err)
			}
			var layout struct {
				Scroll   float64  `json:"scroll"`
				Inner    float64  `json:"inner"`
				Wide     []string `json:"wide"`
				Outlines []struct {
					Label string  `json:"label"`
					X     float64 `json:"x"`
					Y     float64 `json:"y"`
					W     float64 `json:"w"`
					H     float64 `json:"h"`
				} `json:"outlines"`
				Img struct {
					X float64 `json:"x"`
					Y float64 `json:"y"`
					W float64 `json:"w"`
					H float64 `json:"h"`
				} `json:"img"`
				// Overlaps are the labels (outline tags) that cover a
				// screenshot or another label's outline; Tags counts them.
				Overlaps []string `json:"overlaps"`
				Tags     int      `json:"tags"`
				// Heads are the marks tables' header cells that do not show
				// above their column; HeadCount counts the header cells.
				Heads     []string `json:"heads"`
				HeadCount int      `json:"headCount"`
				// Zero and NonZero are the background colours of count
				// badges reading 0 and reading more.
				Zero    []string `json:"zero"`
				NonZero []string `json:"nonZero"`
			}
			err := p.MainFrame().Call(ctx, "", `function() {
  const wide = [];
  for (const el of document.querySelectorAll("body *")) {
    const r = el.getBoundingClientRect();
    if (r.right > innerWidth + 1 && !el.closest(".frame")) wide.push(el.localName + "." + el.className);
  }
  const sec = document.getElementById("page-1");
  let fig = sec; while (fig && !(fig.localName === "div" && fig.className === "shots")) fig = fig.nextElementSibling;
  const img = fig.querySelector("img").getBoundingClientRect();
  const outlines = Array.from(fig.querySelector(".shot").querySelectorAll(".k-finding"), (b) => {
    const r = b.getBoundingClientRect();
    return {label: b.title, x: r.x, y: r.y, w: r.width, h: r.height};
  });
  const hit = (a, b) => a.width > 0 && a.height > 0 && b.width > 0 && b.height > 0 &&
    a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const overlaps = [];
  let tags = 0;
  for (const frame of document.querySelectorAll(".frame")) {
    const shot = frame.querySelector("img").getBoundingClientRect();
    const boxes = Array.from(frame.querySelectorAll(".box"), (b) => [b.title, b.getBoundingClientRect()]);
    for (const tag of frame.querySelectorAll(".tag")) {
      tags++;
      const r = tag.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) overlaps.push(tag.textContent + " is not shown");
      if (hit(r, shot)) overlaps.push(tag.textContent + " covers the screenshot");
      for (const [title, b] of boxes) if (hit(r, b)) overlaps.push(tag.textContent + " covers " + title);
    }
  }
  const heads = [];
  let headCount = 0;
  for (const table of document.querySelectorAll("table.marks")) {
    const ths = table.querySelectorAll("tr.head th");
    const first = table.querySelector("tr:not(.head)");
    ths.forEach((th, i) => {
      headCount++;
      const h = th.getBoundingClientRect(), td = first.children[i].getBoundingClientRect();
      if (getComputedStyle(th).display === "none" || h.width < 20 || h.height === 0 || th.scrollWidth > th.clientWidth + 1 ||
          h.bottom > td.top + 1 || Math.abs(h.left - td.left) > 1 || Math.abs(h.width - td.width) > 1)
        heads.push(th.textContent);
    });
  }
  const zero = [], nonZero = [];
  for (const b of document.querySelectorAll(".badge")) {
    const m = b.textContent.match(/^(\d+) (error|warning|info)/);
    if (m) (m[1] === "0" ? zero : nonZero).push(m[2] + " " + getComputedStyle(b).backgroundColor);
  }
  return {scroll: document.documentElement.scrollWidth, inner: innerWidth, wide: wide.slice(0, 5), outlines,
    img: {x: img.x, y: img.y, w: img.width, h: img.height}, overlaps, tags, heads, headCount, zero, nonZero};
}`, &layout)
			if err != nil {
				t.Fatal(err)
			}
			if layout.Scroll > layout.Inner || len(layout.Wide) > 0 {
				t.Errorf("the report scrolls sideways at %d px: scroll width %.0f; wider than the viewport: %q", size.width, layout.Scroll, layout.Wide)
			}
			// No label covers a screenshot, so none covers a field on it.
			if len(layout.Overlaps) > 0 || layout.Tags == 0 {
				t.Errorf("at %d px, of %d outline labels: %q", size.width, layout.Tags, layout.Overlaps)
			}
			// The marks tables keep their headers, each above its column.
			if len(layout.Heads) > 0 || layout.HeadCount == 0 {
				t.Errorf("at %d px, of %d marks table headers these do not head their column: %q", size.width, layout.HeadCount, layout.Heads)
			}
			// A count of zero is grey; a count of findings has its colour.
			grey := regexp.MustCompile(`^\w+ rgb\((\d+), (\d+), (\d+)\)$`)
			for _, z := range layout.Zero {
				m := grey.FindStringSubmatch(z)
				if m == nil || m[1] != m[2] || m[2] != m[3] {
					t.Errorf("a zero count's badge is coloured: %s", z)
				}
			}
			for _, z := range layout.NonZero {
				if m := grey.FindStringSubmatch(z); m == nil || (m[1] == m[2] && m[2] == m[3]) {
					t.Errorf("a count of findings is not coloured: %s", z)
				}
			}
			if len(layout.Zero) == 0 || len(layout.NonZero) == 0 {
				t.Errorf("count badges: %d zero, %d not zero; want both", len(layout.Zero), len(layout.NonZero))
			}
			// The escape-submit page's first finding is the Quick check-in
			// button: its outline sits on the screenshot where the button is.
			var box *check.Rect
			for _, f := range rep.Pages[0].Findings {
				if f.Check == check.CheckSubmitPaths {
					box = f.Box
				}
			}
			if box == nil {
				t.Fatal("the escape route's finding has no box")
			}
			view := rep.Pages[0].Views[0]
			scale := layout.Img.W / view.Width
			wantX, wantY := layout.Img.X+box.X*scale, layout.Img.Y+box.Y*scale
			hit := false
			for _, o := range layout.Outlines {
				if o.Label == "finding 1" && math.Abs(o.X-wantX) < 2 && math.Abs(o.Y-wantY) < 2 && math.Abs(o.W-box.Width*scale) < 2 {
					hit = true
				}
			}
			if !hit {
				t.Errorf("no outline labelled \"finding 1\" at (%.0f, %.0f) %.0fx%.0f on the screenshot; outlines: %+v", wantX, wantY, box.Width*scale, box.Height*scale, layout.Outlines)
			}
			shot, err := p.Screenshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.ArtifactDir(), "report-"+size.name+".png")
			if err := os.WriteFile(out, shot.PNG, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot of the report at %d px: %s", size.width, out)
			// Each page's screenshots alone, for a person to look at the
			// outlines (the whole report is taller than a screenshot takes).
			for i, pg := range rep.Pages {
				if len(pg.Views) == 0 {
					continue
				}
				if err := p.MainFrame().Call(ctx, "", `function(i) {
  const keep = document.querySelectorAll(".shots")[i];
  for (const el of document.body.children) el.style.display = el === keep ? "" : "none";
}`, nil, i); err != nil {
					t.Fatal(err)
				}
				if shot, err = p.Screenshot(ctx); err != nil {
					t.Fatal(err)
				}
				out = filepath.Join(t.ArtifactDir(), fmt.Sprintf("report-%s-page-%d.png", size.name, i+1))
				if err := os.WriteFile(out, shot.PNG, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("the screenshots of page %d (%s) at %d px: %s", i+1, pg.URL, size.width, out)
			}
		})
	}
}
