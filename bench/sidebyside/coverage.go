package main

import (
	"bytes"
	"strings"
	"unicode"

	"golang.org/x/net/html"
)

// runLength is the length of the word runs compared: a run of the page's
// text counts as carried when the snapshot holds the same words in order.
// Runs are taken within one block of text (a paragraph, a list item, a
// cell, a heading), as a reader reads them; a block shorter than runLength
// words is one run if it has at least minRun words.
const (
	runLength = 12
	minRun    = 3
)

// maxGap is how many snapshot words may sit between two consecutive words
// of a run (a ref, a role, a link's URL between a sentence's words).
const maxGap = 10

// coverage is the share of the page's runs that the snapshot text carries
// in order, ignoring case, punctuation and markup (up to maxGap words of a
// snapshot's own notation may sit between two words of a run, so a link
// kept in its sentence counts however a server writes it).
func coverage(source []byte, name, snapshot string) float64 {
	var blocks []string
	if strings.HasSuffix(name, ".txt") {
		blocks = strings.Split(string(source), "\n\n")
	} else {
		blocks = visibleBlocks(source)
	}
	have := words(snapshot)
	at := map[string][]int{}
	for i, w := range have {
		at[w] = append(at[w], i)
	}
	runs, found := 0, 0
	for _, b := range blocks {
		ws := words(b)
		for i := 0; i < len(ws); i += runLength {
			run := ws[i:min(i+runLength, len(ws))]
			if len(run) < minRun {
				continue
			}
			runs++
			if carried(run, have, at) {
				found++
			}
		}
	}
	if runs == 0 {
		return 1
	}
	return float64(found) / float64(runs)
}

// carried reports whether run occurs in have in order with gaps of at
// most maxGap words.
func carried(run, have []string, at map[string][]int) bool {
next:
	for _, start := range at[run[0]] {
		pos := start
		for _, w := range run[1:] {
			end := min(pos+1+maxGap, len(have))
			j := pos + 1
			for ; j < end && have[j] != w; j++ {
			}
			if j >= end {
				continue next
			}
			pos = j
		}
		return true
	}
	return false
}

// blockElements start a new block of text.
var blockElements = map[string]bool{
	"p": true, "div": true, "li": true, "td": true, "th": true, "h1": true, "h2": true, "h3": true,
	"h4": true, "h5": true, "h6": true, "pre": true, "blockquote": true, "figcaption": true,
	"caption": true, "dt": true, "dd": true, "section": true, "article": true, "header": true,
	"footer": true, "nav": true, "main": true, "aside": true, "ul": true, "ol": true, "tr": true,
	"table": true, "figure": true, "form": true, "label": true, "option": true, "select": true,
	"button": true, "cite": true, "body": true,
}

// visibleBlocks is the text of the body that a reader sees, in blocks:
// text nodes and image alt text, without script, style, template, head,
// iframe fallback, hidden or aria-hidden content.
func visibleBlocks(src []byte) []string {
	doc, err := html.Parse(bytes.NewReader(src))
	if err != nil {
		return nil
	}
	var blocks []string
	var sb strings.Builder
	flush := func() {
		if t := strings.TrimSpace(sb.String()); t != "" {
			blocks = append(blocks, t)
		}
		sb.Reset()
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			// iframe, noembed and noframes hold fallback text that a
			// browser parses as raw text and never renders.
			case "script", "style", "template", "head", "noscript", "svg", "iframe", "noembed", "noframes":
				return
			}
			for _, a := range n.Attr {
				if a.Key == "aria-hidden" && a.Val == "true" || a.Key == "hidden" {
					return
				}
			}
			if blockElements[n.Data] {
				flush()
			}
			if n.Data == "img" {
				for _, a := range n.Attr {
					if a.Key == "alt" {
						flush()
						sb.WriteString(a.Val)
						flush()
					}
				}
			}
		}
		if n.Type == html.ElementNode && n.Data == "br" {
			sb.WriteByte(' ') // a line break parts the words either side
		}
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && blockElements[n.Data] {
			flush()
		}
	}
	walk(doc)
	flush()
	return blocks
}

// words splits text into lower-case words of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}
