package browser_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
)

const fixedBox = `position:fixed;left:0;width:200px;height:60px;display:block`

func popupSite(t *testing.T) *site {
	s := newSite(t)
	s.html("company.test/opener", `<title>opener</title>
<a href="http://company.test/popup" target="_blank" style="`+fixedBox+`;top:0">new tab</a>
<button style="`+fixedBox+`;top:100px" onclick="window.open('http://company.test/solo', '_blank', 'noopener')">noopener</button>`)
	s.html("company.test/popup", `<title>popup</title><iframe src="http://other.test/middle"></iframe>`)
	s.html("other.test/middle", `<iframe src="http://company.test/leaf"></iframe>`)
	s.html("company.test/leaf", `<p>leaf</p>`)
	s.html("company.test/solo", `<title>solo</title>`)
	// The popup blocker lets a page open a tab in answer to a click only.
	s.html("company.test/auto", `<title>auto</title><body style="margin:0"><div style="`+fixedBox+`;top:0" onclick="setTimeout(() => window.open('http://company.test/closer'), 50)">open</div></body>`)
	s.html("company.test/closer", `<title>closer</title><script>setTimeout(() => window.close(), 300)</script>`)
	return s
}

// companyFrames counts the frames of every tab that read navigator.poppyTest
// as "agent": the Company script ran there before the page, and the frame
// answers.
func companyFrames(t *testing.T, ctx context.Context, b *browser.Browser) int {
	t.Helper()
	var reached atomic.Int32
	fails := b.EachFrame(ctx, 5*time.Second, func(ctx context.Context, p *browser.Page, f browser.Frame) error {
		v, err := evalIn(ctx, f, `function(){ return String(navigator.poppyTest) }`)
		if err != nil {
			return err
		}
		if hostOfURL(f.URL) == "company.test" {
			if v != "agent" {
				t.Errorf("%s reads %q, want agent", f.URL, v)
			}
			reached.Add(1)
		}
		return nil
	})
	for _, f := range fails {
		t.Errorf("frame %s of %s could not be reached: %v", f.Frame.URL, f.Page.URL(), f.Err)
	}
	return int(reached.Load())
}

// TestNewTabsAreConfiguredAndRun: a target=_blank link and a noopener
// window.open each open a tab that loads (the runtime used to leave such a
// tab paused for good), with the header on its requests, the Company script
// in every Company frame, out-of-process ones included, and the new tab
// active.
func TestNewTabsAreConfiguredAndRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	s := popupSite(t)
	b := launchSite(t, ctx, s, nil)
	p := openPage(t, ctx, b)
	if _, err := p.Navigate(ctx, "http://company.test/opener"); err != nil {
		t.Fatal(err)
	}
	tabs := p.Tabs()
	open := func(x, y float64, url string) *browser.Page {
		t.Helper()
		mark := tabs.Mark()
		if err := p.Click(ctx, x, y); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		opened, err := browsertest.WaitOpened(wctx, tabs, mark)
		if err != nil {
			t.Fatal(err)
		}
		np := opened[0].Page
		if tabs.Active() != np {
			t.Errorf("the new tab is not the active one")
		}
		if _, err := np.WaitLoaded(wctx, func(u string) bool { return u == url }); err != nil {
			t.Fatalf("the new tab never loaded %s: %v", url, err)
		}
		return np
	}
	popup := open(100, 30, "http://company.test/popup")
	solo := open(100, 130, "http://company.test/solo")

	for _, key := range []string{"company.test/popup", "company.test/leaf", "company.test/solo"} {
		if got := s.header(key); len(got) == 0 || got[0] != companyHeader {
			t.Errorf("%s: Poppy-Extensions %q, want %q", key, got, companyHeader)
		}
	}
	if got := s.header("other.test/middle"); len(got) == 0 || got[0] != "" {
		t.Errorf("other.test/middle: Poppy-Extensions %q, want none", got)
	}
	poll(t, ctx, "the popup's nested company frame", func() bool { return len(popup.Frames()) == 3 })
	// opener, popup, the leaf inside other.test inside the popup, solo.
	if n := companyFrames(t, ctx, b); n != 4 {
		t.Errorf("%d company frames read the script, want 4", n)
	}

	list := tabs.List(ctx)
	if len(list) != 3 {
		t.Fatalf("%d tabs, want 3: %+v", len(list), list)
	}
	if list[1].Page != popup || list[1].Opener != 0 || list[2].Page != solo || !list[2].Active {
		t.Errorf("tabs: %+v", list)
	}
	poll(t, ctx, "the popup's title", func() bool { return tabs.List(ctx)[1].Title == "popup" })

	// Select and close: the active tab falls back to the opener.
	if _, err := tabs.Select(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := tabs.Close(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if tabs.Active() != p {
		t.Errorf("after closing the active popup, the active tab is %v, want its opener", tabs.Active().URL())
	}
	if got := len(tabs.List(ctx)); got != 2 {
		t.Errorf("%d tabs after a close, want 2", got)
	}
}

// TestPageOpensATabThatClosesItself: a Company page whose own script opens
// a tab, and a tab that closes itself with window.close(): the tab goes off
// the list, the active tab falls back to its opener, and the opener goes on
// working.
func TestPageOpensATabThatClosesItself(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := popupSite(t)
	b := launchSite(t, ctx, s, nil)
	p := openPage(t, ctx, b)
	tabs := p.Tabs()
	if _, err := p.Navigate(ctx, "http://company.test/auto"); err != nil {
		t.Fatal(err)
	}
	mark := tabs.Mark()
	if err := p.Click(ctx, 100, 30); err != nil {
		t.Fatal(err)
	}
	opened, err := browsertest.WaitOpened(ctx, tabs, mark)
	if err != nil {
		t.Fatal(err)
	}
	closer := opened[0].Page
	select {
	case <-closer.Done():
	case <-ctx.Done():
		t.Fatal("the tab never closed itself")
	}
	poll(t, ctx, "the closed tab to leave the list", func() bool { return len(tabs.List(ctx)) == 1 })
	if tabs.Active() != p {
		t.Errorf("active tab after window.close(): want the opener")
	}
	_, err = evalIn(ctx, closer.MainFrame(), `function(){ return "x" }`)
	wantErr(t, "a call in the closed tab", err, browser.ErrTabClosed)
	if v, err := evalIn(ctx, p.MainFrame(), `function(){ return document.title }`); err != nil || v != "auto" {
		t.Errorf("the opener: %q, %v", v, err)
	}
	if !slices.ContainsFunc(b.Pages(), func(q *browser.Page) bool { return q == p }) || slices.Contains(b.Pages(), closer) {
		t.Errorf("Pages() still lists the closed tab or lost the opener")
	}
}
