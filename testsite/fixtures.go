package testsite

import (
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed fixtures/marks
var markFixtureFS embed.FS

// MarkFixtures lists the mark fixture pages under /fixtures/marks/, each a
// set of cases of browser-control v1 sections 4 and 5 (mark values, form
// owners, activation, shadow trees, frames, pages that change). The frame
// pages are also served by partner.test, so that frames.html holds an
// out-of-process iframe.
func MarkFixtures() []string {
	return []string{"kinds.html", "forms.html", "activation.html", "shadow.html", "frames.html", "dynamic.html"}
}

// MarkFixtureURL is the URL of a mark fixture on the Company's host.
func MarkFixtureURL(name string) string {
	return "https://" + CompanyDomain + "/fixtures/marks/" + name
}

// Sizes of the generated benchmark pages.
const (
	BigPageElements = 5000 // /fixtures/marks/elements-5000.html
	ButtonsPageSize = 2400 // /fixtures/marks/buttons-2400.html
)

// markFixtures registers /fixtures/marks/ on mux: the embedded pages and
// the two generated pages for benchmarks.
func (s *Site) markFixtures(mux *http.ServeMux) {
	sub, _ := fs.Sub(markFixtureFS, "fixtures/marks") // embedded above
	mux.Handle("GET /fixtures/marks/", http.StripPrefix("/fixtures/marks/", http.FileServerFS(sub)))
	mux.HandleFunc("GET /fixtures/marks/elements-5000.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, elementsPage(BigPageElements))
	})
	mux.HandleFunc("GET /fixtures/marks/buttons-2400.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, buttonsPage(ButtonsPageSize))
	})
}

// buttonsPage is n buttons in forms of 24, every fifth form marked
// submission.
func buttonsPage(n int) string {
	var sb strings.Builder
	sb.WriteString("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Buttons</title><link rel=\"icon\" href=\"data:,\"></head><body><h1>Buttons</h1>\n")
	for i := 0; i < n; i++ {
		if i%24 == 0 {
			if i > 0 {
				sb.WriteString("</form>\n")
			}
			mark := ""
			if i/24%5 == 0 {
				mark = ` data-poppy-user-step="submission"`
			}
			fmt.Fprintf(&sb, "<form id=\"f%d\" name=\"group %d\"%s><p>Group %d</p>\n", i/24, i/24, mark, i/24)
		}
		fmt.Fprintf(&sb, "<button type=\"button\" id=\"b%d\" class=\"btn\">Button %d</button>\n", i, i)
	}
	sb.WriteString("</form></body></html>\n")
	return sb.String()
}

// elementsPage is a page of n elements: sections of 10 (a section, a
// heading, a paragraph with a link, a list of two items, a label with an
// input, a button), every seventh section in a form marked submission with
// its input marked interaction.
func elementsPage(n int) string {
	var sb strings.Builder
	sb.WriteString("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Five thousand elements</title><link rel=\"icon\" href=\"data:,\"></head><body><h1>Catalogue</h1>\n")
	for i := 0; i < n/10; i++ {
		marked := i%7 == 0
		open, close, field := "<section>", "</section>", ""
		if marked {
			open, close = fmt.Sprintf("<form id=\"s%d\" name=\"order %d\" data-poppy-user-step=\"submission\">", i, i), "</form>"
			field = ` data-poppy-user-step="interaction"`
		}
		fmt.Fprintf(&sb, "%s<h2>Item %d</h2><p>Description of item %d, with <a href=\"#i%d\">details</a>.</p>"+
			"<ul><li>Colour %d</li><li>Size %d</li></ul>"+
			"<label>Quantity <input name=\"q%d\"%s></label><button id=\"b%d\">Order item %d</button>%s\n",
			open, i, i, i, i%5, i%3, i, field, i, i, close)
	}
	sb.WriteString("</body></html>\n")
	return sb.String()
}
