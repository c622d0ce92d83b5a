package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// measuredPage is what every server measured of one real page.
type measuredPage struct {
	words   int             // of the page's visible text, as coverage reads it
	servers []pageResult    // snapshot is the median of the repeats
	first   []time.Duration // the first snapshot after navigating, per server
	parts   []readOnResult  // the snapshot read to its end, per server
	// rendered is the coverage of the text the page renders, -1 when not
	// measured (see renderedCoverage).
	rendered    float64
	renderedErr error
}

// failed reports whether some server could not measure the page.
func (m measuredPage) failed() bool {
	for _, pr := range m.servers {
		if pr.err != nil {
			return true
		}
	}
	return false
}

// articleWords parts real articles from Readability's unit-test pages (a
// few paragraphs of Lorem ipsum, at most about 150 words), on which the
// snapshot's two header lines are most of its bytes.
const articleWords = 200

func pageWords(p page) int {
	n := 0
	for _, b := range visibleBlocks(p.source) {
		n += len(words(b))
	}
	return n
}

func (m measuredPage) renderedCell() string {
	switch {
	case m.renderedErr != nil:
		return oneLine("error: " + m.renderedErr.Error())
	case m.rendered < 0:
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*m.rendered)
}

// reportRealPages writes the per-page table and the medians, over every
// page and over the articles. With two servers, ratios are the first's
// figure over the second's.
func reportRealPages(out io.Writer, servers []server, results []measuredPage) {
	two := len(servers) == 2
	head := []string{"page", "words"}
	for _, col := range []struct{ what, ratio string }{{"bytes", "bytes ratio"}, {"first ms", "first ratio"}, {"repeat ms", "repeat ratio"}, {"coverage", ""}} {
		for _, s := range servers {
			head = append(head, s.name+" "+col.what)
		}
		if two && col.ratio != "" {
			head = append(head, col.ratio)
		}
	}
	head = append(head, "rendered text coverage")
	fmt.Fprintf(out, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat(" --- |", len(head)))
	var ok, articles []measuredPage // pages every server measured
	for _, m := range results {
		prs := m.servers
		row := []string{prs[0].name, fmt.Sprint(m.words)}
		for _, pr := range prs {
			row = append(row, oneLine(cell(pr, func(pr pageResult) string { return fmt.Sprint(pr.textBytes) }))) // the error, if any
		}
		if two {
			row = append(row, ratioCell(m.failed(), float64(prs[0].textBytes), float64(prs[1].textBytes)))
		}
		for i, pr := range prs {
			row = append(row, orDash(pr, fmt.Sprintf("%.1f", ms1(m.first[i]))))
		}
		if two {
			row = append(row, ratioCell(m.failed(), float64(m.first[0]), float64(m.first[1])))
		}
		for _, pr := range prs {
			row = append(row, orDash(pr, fmt.Sprintf("%.1f", ms1(pr.snapshot))))
		}
		if two {
			row = append(row, ratioCell(m.failed(), float64(prs[0].snapshot), float64(prs[1].snapshot)))
		}
		for i, pr := range prs {
			cov := fmt.Sprintf("%.1f%%", 100*pr.coverage)
			if ro := m.parts[i]; ro.err != nil {
				cov += " (reading on: " + oneLine(ro.err.Error()) + ")"
			} else if ro.parts > 1 {
				cov += fmt.Sprintf(" (%.1f%% in %d parts)", 100*ro.coverage, ro.parts)
			}
			row = append(row, orDash(pr, cov))
		}
		row = append(row, m.renderedCell())
		fmt.Fprintf(out, "| %s |\n", strings.Join(row, " | "))
		if !m.failed() {
			ok = append(ok, m)
			if m.words >= articleWords {
				articles = append(articles, m)
			}
		}
	}
	fmt.Fprintf(out, "\npages measured by every server: %d of %d\n", len(ok), len(results))
	summarize(out, "every page", servers, ok)
	summarize(out, fmt.Sprintf("articles (%d words or more)", articleWords), servers, articles)
}

// summarize writes the medians over pages and the share of them within
// the goals.
func summarize(out io.Writer, label string, servers []server, pages []measuredPage) {
	fmt.Fprintf(out, "\n%s, %d pages:\n", label, len(pages))
	if len(pages) == 0 {
		return
	}
	for i, s := range servers {
		bytes := pageMedian(pages, func(m measuredPage) float64 { return float64(m.servers[i].textBytes) })
		first := pageMedian(pages, func(m measuredPage) float64 { return ms1(m.first[i]) })
		took := pageMedian(pages, func(m measuredPage) float64 { return ms1(m.servers[i].snapshot) })
		cov := pageMedian(pages, func(m measuredPage) float64 { return 100 * m.servers[i].coverage })
		all := pageMedian(pages, func(m measuredPage) float64 { return 100 * m.parts[i].coverage })
		full := countOf(pages, func(m measuredPage) bool { return m.servers[i].coverage == 1 })
		fmt.Fprintf(out, "- %s: median snapshot text %.0f bytes, first snapshot %.1f ms, repeated %.1f ms, coverage %.1f%% (reading every part: %.1f%%), full coverage on %d pages\n",
			s.name, bytes, first, took, cov, all, full)
	}
	if measured := slices.DeleteFunc(slices.Clone(pages), func(m measuredPage) bool { return m.rendered < 0 || m.renderedErr != nil }); len(measured) > 0 {
		fmt.Fprintf(out, "- the text the page renders (document.body.innerText), %d pages: coverage %.1f%%, full on %d pages\n", len(measured),
			pageMedian(measured, func(m measuredPage) float64 { return 100 * m.rendered }), countOf(measured, func(m measuredPage) bool { return m.rendered == 1 }))
	}
	if len(servers) != 2 {
		return
	}
	ours := func(m measuredPage) pageResult { return m.servers[0] }
	theirs := func(m measuredPage) pageResult { return m.servers[1] }
	halfBytes := func(m measuredPage) bool { return 2*ours(m).textBytes <= theirs(m).textBytes }
	thirdTime := func(m measuredPage) bool { return 3*ours(m).snapshot <= theirs(m).snapshot }
	thirdFirst := func(m measuredPage) bool { return 3*m.first[0] <= m.first[1] }
	byteRatio := pageMedian(pages, func(m measuredPage) float64 { return float64(ours(m).textBytes) / float64(theirs(m).textBytes) })
	firstRatio := pageMedian(pages, func(m measuredPage) float64 { return float64(m.first[0]) / float64(m.first[1]) })
	timeRatio := pageMedian(pages, func(m measuredPage) float64 { return float64(ours(m).snapshot) / float64(theirs(m).snapshot) })
	share := func(f func(measuredPage) bool) string {
		n := countOf(pages, f)
		return fmt.Sprintf("%d (%.0f%%)", n, 100*float64(n)/float64(len(pages)))
	}
	fmt.Fprintf(out, "- median per-page ratio %s / %s: bytes %.2f, first snapshot %.2f, repeated %.2f\n", servers[0].name, servers[1].name, byteRatio, firstRatio, timeRatio)
	fmt.Fprintf(out, "- pages with bytes <= 1/2: %s; first snapshot <= 1/3: %s; repeated <= 1/3: %s; bytes and first snapshot both: %s\n",
		share(halfBytes), share(thirdFirst), share(thirdTime), share(func(m measuredPage) bool { return halfBytes(m) && thirdFirst(m) }))
	fmt.Fprintf(out, "- pages where %s covers less text than %s: %s\n", servers[0].name, servers[1].name,
		share(func(m measuredPage) bool { return ours(m).coverage < theirs(m).coverage }))
}

// orDash is v, or "-" when pr failed (its bytes cell says why).
func orDash(pr pageResult, v string) string {
	if pr.err != nil {
		return "-"
	}
	return v
}

// oneLine keeps an error within its table cell: one line, 160 bytes at most.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = strings.ToValidUTF8(s[:160], "") + "…"
	}
	return s
}

func ratioCell(failed bool, a, b float64) string {
	if failed || b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// pageMedian is the median of f over the pages.
func pageMedian(pages []measuredPage, f func(measuredPage) float64) float64 {
	vs := make([]float64, len(pages))
	for i, m := range pages {
		vs[i] = f(m)
	}
	slices.Sort(vs)
	return midpoint(vs)
}

func countOf(pages []measuredPage, f func(measuredPage) bool) int {
	n := 0
	for _, m := range pages {
		if f(m) {
			n++
		}
	}
	return n
}

func ms1(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
