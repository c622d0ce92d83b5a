package check_test

import (
	"context"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poppy-browser/poppy-browser/check"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestCrawlDemoAirline: --crawl checks the demo airline from its home
// page: the pages its links and its sitemap.xml lead to, on its own host
// only, within the bounds and patterns given; every page found is checked.
func TestCrawlDemoAirline(t *testing.T) {
	c := newChecker(t, check.Options{NoProbe: true, Parallel: 2})
	ctx, cancel := context.WithTimeout(t.Context(), 6*time.Minute)
	defer cancel()
	home := "https://" + testsite.CompanyDomain + "/"
	paths := func(urls []string) []string {
		var out []string
		for _, u := range urls {
			p, err := url.Parse(u)
			if err != nil || p.Host != testsite.CompanyDomain {
				t.Errorf("crawl left the Company's host: %s", u)
				continue
			}
			out = append(out, p.Path)
		}
		return out
	}
	found, err := c.Crawl(ctx, []string{home}, check.CrawlOptions{Max: 20, Exclude: []string{"/fixtures/*"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/", "/bookings/" + testsite.BookingID, "/bookings/" + testsite.BookingID + "/check-in"}
	got := paths(found)
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("crawl did not find %s: %q", w, got)
		}
	}
	if got[0] != "/" {
		t.Errorf("the page given is not first: %q", got)
	}
	for _, p := range got {
		if len(p) > 9 && p[:10] == "/fixtures/" {
			t.Errorf("--exclude /fixtures/* let %s through", p)
		}
	}
	// The sitemap lists a fixture no page links to; the bound holds.
	found, err = c.Crawl(ctx, []string{home}, check.CrawlOptions{Max: 3, Depth: 1, Include: []string{"/fixtures/check/*", "/bookings/*"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"/", "/bookings/" + testsite.BookingID, "/fixtures/check/all-marked"}, paths(found)); diff != "" {
		t.Errorf("bounded crawl with --include (-want +got):\n%s", diff)
	}

	all, err := c.Crawl(ctx, []string{home}, check.CrawlOptions{Max: 4, Exclude: []string{"/fixtures/*"}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := c.Run(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Pages) != len(all) || len(all) < 3 {
		t.Fatalf("%d pages checked of %d found", len(rep.Pages), len(all))
	}
	for _, p := range rep.Pages {
		if p.Status != check.StatusChecked {
			t.Errorf("%s: %s: %s", p.URL, p.Status, p.Error)
		}
	}
}

// TestGlob: crawl patterns, "*" any run of characters.
func TestCrawlPatterns(t *testing.T) {
	for _, tc := range []struct {
		include, exclude []string
		path             string
		want             bool
	}{
		{nil, nil, "/any", true},
		{[]string{"/checkout/*"}, nil, "/checkout/pay", true},
		{[]string{"/checkout/*"}, nil, "/checkout/pay/card", true},
		{[]string{"/checkout/*"}, nil, "/blog/a", false},
		{nil, []string{"*.pdf"}, "/docs/terms.pdf", false},
		{[]string{"/docs/*"}, []string{"*.pdf"}, "/docs/terms.pdf", false},
		{[]string{"/a?c"}, nil, "/abc", true},
		{nil, []string{"/"}, "", false},
	} {
		if got := check.Wanted(tc.path, check.CrawlOptions{Include: tc.include, Exclude: tc.exclude}); got != tc.want {
			t.Errorf("include %q exclude %q path %q: %v, want %v", tc.include, tc.exclude, tc.path, got, tc.want)
		}
	}
}
