package testsite

import (
	"embed"
	"io/fs"
	"net/http"
)

// The corpus is a handful of pages written for this project in the style of
// real sites (a news article, a wiki article, a blog post, a shop's product
// page, a documentation page, a plain-text file), to measure how much of a
// page's text a snapshot carries. It holds no copied content.
//
//go:embed fixtures/corpus
var corpusFS embed.FS

// CorpusPages lists the corpus pages under /fixtures/corpus/.
func CorpusPages() []string {
	return []string{"news-article.html", "wiki-article.html", "blog-post.html", "product-page.html", "docs-page.html", "release-notes.txt"}
}

// CorpusURL is the URL of a corpus page on the third-party host, as an
// ordinary website the agent visits.
func CorpusURL(name string) string {
	return "https://" + PartnerHost + "/fixtures/corpus/" + name
}

// CorpusPage returns a corpus page's source.
func CorpusPage(name string) ([]byte, error) {
	return corpusFS.ReadFile("fixtures/corpus/" + name)
}

// serveCorpus registers /fixtures/corpus/ on mux.
func serveCorpus(mux *http.ServeMux) {
	sub, _ := fs.Sub(corpusFS, "fixtures/corpus") // embedded above
	mux.Handle("GET /fixtures/corpus/", http.StripPrefix("/fixtures/corpus/", http.FileServerFS(sub)))
}
