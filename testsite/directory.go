package testsite

import (
	"maps"
	"slices"
)

// PageLink is one page of the Site that a person may want to open: the
// demo's pages and every fixture.
type PageLink struct {
	Group string // "demo", "marks", "check" or "corpus"
	Name  string
	URL   string
}

// Directory lists the Site's pages that a person opens by hand or hands to
// check: the demo airline's pages, the mark fixtures, the conformance
// fixtures of check and the snapshot corpus, in that order.
func Directory() []PageLink {
	base := "https://" + CompanyDomain
	links := []PageLink{
		{"demo", "home", base + "/"},
		{"demo", "booking", BookingURL()},
		{"demo", "check-in (marked)", CheckInURL()},
		{"demo", "check-in without marks", base + "/fixtures/check-in-unmarked"},
		{"demo", "popup", base + "/fixtures/popup"},
		{"demo", "tamper with navigator.poppy", base + "/fixtures/poppy-tamper"},
		{"demo", "the User's turn", base + "/fixtures/user-turn"},
		{"demo", "redirect to partner.test", base + "/fixtures/redirect-offsite"},
	}
	for _, name := range MarkFixtures() {
		links = append(links, PageLink{"marks", name, MarkFixtureURL(name)})
	}
	check := CheckFixtureURLs()
	for _, name := range slices.Sorted(maps.Keys(check)) {
		links = append(links, PageLink{"check", name, check[name]})
	}
	for _, name := range CorpusPages() {
		links = append(links, PageLink{"corpus", name, CorpusURL(name)})
	}
	return links
}
