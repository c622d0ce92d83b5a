package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// report writes what each server measured on the built-in pages as one
// Markdown table, a column per server.
func report(out io.Writer, servers []server, rs []result) {
	fmt.Fprintf(out, "| | %s |\n| --- |%s\n", names(servers), strings.Repeat(" --- |", len(servers)))
	row := func(label string, f func(r result) string) {
		cells := make([]string, len(rs))
		for i, r := range rs {
			cells[i] = f(r)
		}
		fmt.Fprintf(out, "| %s | %s |\n", label, strings.Join(cells, " | "))
	}
	row("initialize answered", func(r result) string { return ms(r.initialize) })
	row("first page loaded (from process start)", func(r result) string { return ms(r.firstPage) })
	row("tools/list bytes", func(r result) string { return fmt.Sprint(r.toolsListBytes) })
	row("server + browser RSS at the end", func(r result) string { return fmt.Sprintf("%d MiB", r.rssKiB/1024) })
	for i := range rs[0].pages {
		p := rs[0].pages[i].page
		row(p.name+": snapshot", func(r result) string { return cell(r.pages[i], func(pr pageResult) string { return ms(pr.snapshot) }) })
		row(p.name+": open and read (navigate, and snapshot unless navigate shows the page)", func(r result) string {
			return cell(r.pages[i], func(pr pageResult) string { return ms(pr.open) })
		})
		row(p.name+": snapshot text bytes", func(r result) string {
			return cell(r.pages[i], func(pr pageResult) string { return fmt.Sprint(pr.textBytes) })
		})
		row(p.name+": snapshot text bytes, every part (read on with from)", func(r result) string {
			return cell(r.pages[i], func(pr pageResult) string { return fmt.Sprint(pr.allBytes) })
		})
		row(p.name+": snapshot result bytes on the wire", func(r result) string {
			return cell(r.pages[i], func(pr pageResult) string { return fmt.Sprint(pr.wire) })
		})
		if p.click != "" {
			row(p.name+": click", func(r result) string { return cell(r.pages[i], func(pr pageResult) string { return ms(pr.click) }) })
		}
		if p.source != nil {
			row(p.name+": text coverage (12-word runs)", func(r result) string {
				return cell(r.pages[i], func(pr pageResult) string { return fmt.Sprintf("%.0f%%", 100*pr.coverage) })
			})
		}
	}
	row("corpus, median over its pages: snapshot text bytes / text coverage", corpusMedians)
}

// corpusMedians is the median snapshot text bytes and text coverage over
// the corpus pages (those whose coverage was measured), each median taken
// on its own.
func corpusMedians(r result) string {
	var bytes []int
	var covs []float64
	for _, pr := range r.pages {
		if pr.coverageMeasured && pr.err == nil {
			bytes, covs = append(bytes, pr.textBytes), append(covs, pr.coverage)
		}
	}
	if len(bytes) == 0 {
		return "none measured"
	}
	sort.Ints(bytes)
	sort.Float64s(covs)
	return fmt.Sprintf("%d / %.0f%%", midpoint(bytes), 100*midpoint(covs))
}

// midpoint is the median of sorted values: the mean of the two middle
// ones when their number is even.
func midpoint[T int | float64](s []T) T {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func cell(pr pageResult, f func(pageResult) string) string {
	if pr.err != nil {
		return "error: " + strings.ReplaceAll(pr.err.Error(), "|", "/")
	}
	return f(pr)
}

func names(servers []server) string {
	n := make([]string, len(servers))
	for i, s := range servers {
		n[i] = s.name
	}
	return strings.Join(n, " | ")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
