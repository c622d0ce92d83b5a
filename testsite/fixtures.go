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

//go:embed fixtures/webmcp
var webmcpFixtureFS embed.FS

// WebMCPFixtures lists the WebMCP fixture pages under /fixtures/webmcp/,
// each citing the WebMCP draft section it follows: declarative tools
// (<form toolname>) marked and unmarked, imperative tools whose scripts
// reach marked steps, tools that set a marked control's value with no
// event or go around it (a clone, a field moved out of its form, a
// shadow tree), frames whose tools are not the page's, and a page busy
// right after the agent's input.
func WebMCPFixtures() []string {
	return []string{"declarative.html", "imperative.html", "silent.html", "swapped.html", "busy.html", "unmarked.html", "opener.html", "helper.html", "flood.html", "honest.html", "late.html", "channel.html", "channel-helper.html", "late-frame.html", "late-frame-form.html", "busy-opener.html", "busy-tab.html", "onload.html", "onload-submit.html"}
}

// WebMCPFixtureURL is the URL of a WebMCP fixture on the Company's host.
func WebMCPFixtureURL(name string) string {
	return "https://" + CompanyDomain + "/fixtures/webmcp/" + name
}

// webmcpFixtures registers /fixtures/webmcp/ on mux.
func webmcpFixtures(mux *http.ServeMux) {
	sub, _ := fs.Sub(webmcpFixtureFS, "fixtures/webmcp") // embedded above
	mux.Handle("GET /fixtures/webmcp/", http.StripPrefix("/fixtures/webmcp/", http.FileServerFS(sub)))
}

// MarkFixtures lists the mark fixture pages under /fixtures/marks/, each a
// set of cases of browser-control v1 sections 4 and 5 (mark values, form
// owners, activation, shadow trees, frames, pages that change, how forms
// are submitted under HTML's rules). The frame
// pages are also served by partner.test, so that frames.html holds an
// out-of-process iframe.
func MarkFixtures() []string {
	return []string{"kinds.html", "forms.html", "activation.html", "shadow.html", "frames.html", "dynamic.html", "submit.html"}
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
// the two generated pages for benchmarks. The generated pages use markup
// as component libraries write it (classes, data attributes, wrappers,
// icons); ?markup=plain serves the same elements with bare tags.
func (s *Site) markFixtures(mux *http.ServeMux) {
	sub, _ := fs.Sub(markFixtureFS, "fixtures/marks") // embedded above
	mux.Handle("GET /fixtures/marks/", http.StripPrefix("/fixtures/marks/", http.FileServerFS(sub)))
	mux.HandleFunc("GET /fixtures/marks/elements-5000.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, elementsPage(BigPageElements, r.URL.Query().Get("markup") != "plain"))
	})
	mux.HandleFunc("GET /fixtures/marks/buttons-2400.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, buttonsPage(ButtonsPageSize, r.URL.Query().Get("markup") != "plain"))
	})
}

const pageHead = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title><link rel=\"icon\" href=\"data:,\"></head><body>\n"

// buttonsPage is n buttons in forms of 24; every fifth form is marked
// submission and its buttons submit it, the others are type=button. Rich
// markup wraps each button in a div with an icon (svg, path) and a label
// span, so the page holds 5n+ elements of which n are buttons.
func buttonsPage(n int, rich bool) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, pageHead, "Buttons")
	sb.WriteString("<h1>Buttons</h1>\n")
	for i := 0; i < n; i++ {
		marked := i/24%5 == 0
		if i%24 == 0 {
			if i > 0 {
				sb.WriteString("</form>\n")
			}
			mark := ""
			if marked {
				mark = ` data-poppy-user-step="submission"`
			}
			if rich {
				fmt.Fprintf(&sb, "<form id=\"f%d\" name=\"group %d\" class=\"product-grid product-grid--compact js-product-grid\" data-grid-id=\"%d\"%s><p class=\"product-grid__title text-sm text-muted\">Group %d</p>\n", i/24, i/24, i/24, mark, i/24)
			} else {
				fmt.Fprintf(&sb, "<form id=\"f%d\" name=\"group %d\"%s><p>Group %d</p>\n", i/24, i/24, mark, i/24)
			}
		}
		typ := "button"
		if marked {
			typ = "submit"
		}
		if rich {
			fmt.Fprintf(&sb, "<div class=\"product-card__actions d-flex align-items-center\"><button type=\"%s\" id=\"b%d\" class=\"btn btn--secondary btn--sm product-card__cta js-track-click\" data-product-id=\"%d\" data-analytics-event=\"cta_click\" data-variant=\"default\">"+
				"<svg class=\"icon icon--cart\" aria-hidden=\"true\" focusable=\"false\" width=\"16\" height=\"16\" viewBox=\"0 0 16 16\"><path d=\"M0 1h3l2 9h8l2-6H5\"></path></svg>"+
				"<span class=\"btn__label\">Button %d</span></button></div>\n", typ, i, i, i)
		} else {
			fmt.Fprintf(&sb, "<button type=\"%s\" id=\"b%d\">Button %d</button>\n", typ, i, i)
		}
	}
	sb.WriteString("</form></body></html>\n")
	return sb.String()
}

// elementsPage is a page of n elements in sections of 10 (section, heading,
// paragraph, link, list, two items, label, input, button); every seventh
// section is a form marked submission whose input is marked interaction.
// Rich markup adds the classes and data attributes of a component library,
// not elements.
func elementsPage(n int, rich bool) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, pageHead, "Five thousand elements")
	sb.WriteString("<h1>Catalogue</h1>\n")
	for i := 0; i < n/10; i++ {
		marked := i%7 == 0
		open, close, field := "<section>", "</section>", ""
		if rich {
			open = fmt.Sprintf("<section class=\"catalogue__item card card--elevated mb-4\" data-item-id=\"%d\" data-testid=\"catalogue-item\">", i)
		}
		if marked {
			open, close = fmt.Sprintf("<form id=\"s%d\" name=\"order %d\" class=\"catalogue__item card card--elevated mb-4\" data-item-id=\"%d\" data-poppy-user-step=\"submission\">", i, i, i), "</form>"
			if !rich {
				open = fmt.Sprintf("<form id=\"s%d\" name=\"order %d\" data-poppy-user-step=\"submission\">", i, i)
			}
			field = ` data-poppy-user-step="interaction"`
		}
		if rich {
			fmt.Fprintf(&sb, "%s<h2 class=\"card__title text-lg font-semibold\" id=\"item-%d-title\">Item %d</h2>"+
				"<p class=\"card__body text-sm text-muted line-clamp-2\">Description of item %d, with <a class=\"link link--primary js-track-click\" data-analytics-event=\"details_click\" href=\"#i%d\">details</a>.</p>"+
				"<ul class=\"card__facts list-unstyled d-flex gap-2\"><li class=\"badge badge--neutral\">Colour %d</li><li class=\"badge badge--neutral\">Size %d</li></ul>"+
				"<label class=\"form-field form-field--inline\" for=\"q%d\">Quantity <input class=\"form-control form-control--sm\" type=\"number\" min=\"0\" max=\"9\" inputmode=\"numeric\" autocomplete=\"off\" id=\"q%d\" name=\"q%d\"%s></label>"+
				"<button class=\"btn btn--primary btn--sm card__cta js-add-to-cart\" data-item-id=\"%d\" aria-describedby=\"item-%d-title\" id=\"b%d\">Order item %d</button>%s\n",
				open, i, i, i, i, i%5, i%3, i, i, i, field, i, i, i, i, close)
		} else {
			fmt.Fprintf(&sb, "%s<h2>Item %d</h2><p>Description of item %d, with <a href=\"#i%d\">details</a>.</p>"+
				"<ul><li>Colour %d</li><li>Size %d</li></ul>"+
				"<label>Quantity <input name=\"q%d\"%s></label><button id=\"b%d\">Order item %d</button>%s\n",
				open, i, i, i, i%5, i%3, i, field, i, i, close)
		}
	}
	sb.WriteString("</body></html>\n")
	return sb.String()
}
