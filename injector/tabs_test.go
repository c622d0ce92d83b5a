package injector_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/injector"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestSetReachesEveryTab: a target=_blank link and a noopener window.open
// open Company tabs that read navigator.poppy.controller (with an
// out-of-process Company frame inside a third party's); a switch to the
// User and back changes every Company frame of every tab, and a crashed,
// unused first tab does not hold it up.
func TestSetReachesEveryTab(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	b, in := tabsSetup(t, ctx)
	unused := b.Pages()[0] // the browser's own first tab
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Navigate(ctx, "https://company.test/opener"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		x, y float64
		url  string
	}{{100, 30, "https://company.test/popup"}, {100, 130, "https://company.test/solo"}} {
		mark := p.Tabs().Mark()
		if err := p.Click(ctx, c.x, c.y); err != nil {
			t.Fatal(err)
		}
		opened, err := browsertest.WaitOpened(ctx, p.Tabs(), mark)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := opened[0].Page.WaitLoaded(ctx, func(u string) bool { return u == c.url }); err != nil {
			t.Fatalf("the tab never loaded %s: %v", c.url, err)
		}
	}
	// The popup's Company frame inside other.test loads after the popup.
	for ctx.Err() == nil && len(p.Tabs().List(ctx)[1].Page.Frames()) < 3 {
		time.Sleep(20 * time.Millisecond)
	}
	_ = unused.Goto(ctx, "chrome://crash")
	for ctx.Err() == nil && !unused.Crashed() {
		time.Sleep(20 * time.Millisecond)
	}

	check := func(want spec.Controller) {
		t.Helper()
		n := 0
		for _, tab := range p.Tabs().List(ctx) {
			for _, f := range tab.Page.Frames() {
				var v string
				if err := f.Call(ctx, "", `function(){ return 'poppy' in navigator ? String(navigator.poppy.controller) : "absent" }`, &v); err != nil {
					t.Fatalf("reading %s: %v", f.URL, err)
				}
				company := f.URL != "https://other.test/middle"
				switch {
				case company && v != string(want):
					t.Errorf("%s reads %q, want %q", f.URL, v, want)
				case !company && v != "absent":
					t.Errorf("%s (not the Company's) has navigator.poppy: %q", f.URL, v)
				}
				if company {
					n++
				}
			}
		}
		if n != 4 {
			t.Errorf("%d Company frames in the tabs, want 4 (opener, popup, leaf, solo)", n)
		}
	}
	check(spec.ControllerAgent)
	for _, c := range []spec.Controller{spec.ControllerUser, spec.ControllerAgent} {
		start := time.Now()
		if err := in.Set(ctx, c); err != nil {
			t.Fatalf("switching to %s: %v", c, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("switching to %s took %s", c, d)
		}
		check(c)
	}
}

// tabsSetup serves the pages of the tab tests and launches a browser with
// navigator.poppy for company.test.
func tabsSetup(t *testing.T, ctx context.Context) (*browser.Browser, *injector.Injector) {
	t.Helper()
	pages := map[string]string{
		"company.test/opener": `<a href="https://company.test/popup" target="_blank" style="position:fixed;left:0;top:0;width:200px;height:60px;display:block">tab</a>
<button style="position:fixed;left:0;top:100px;width:200px;height:60px" onclick="window.open('https://company.test/solo', '_blank', 'noopener')">noopener</button>`,
		"company.test/popup":    `<iframe src="https://other.test/middle"></iframe>`,
		"other.test/middle":     `<iframe src="https://company.test/leaf"></iframe>`,
		"company.test/leaf":     `<p>leaf</p>`,
		"company.test/solo":     `<p>solo</p>`,
		"company.test/spinning": `<button style="position:fixed;left:0;top:0;width:200px;height:60px" onclick="for (;;) {}">spin</button>`,
		"company.test/alerting": `<button style="position:fixed;left:0;top:0;width:200px;height:60px" onclick="alert('wait')">alert</button>
<iframe style="position:fixed;top:100px" src="https://other.test/middle"></iframe>`,
	}
	return launch(t, ctx, "company.test", serveHTTPS(t, pages))
}

// TestSetWithADialogOpen: a dialog in a tab does not fail a switch of
// control: the Company frames it holds (no script of theirs runs
// meanwhile: the top frame, and the out-of-process Company frame that
// shares its renderer) are set as soon as it is answered.
func TestSetWithADialogOpen(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	b, in := tabsSetup(t, ctx)
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Navigate(ctx, "https://company.test/alerting"); err != nil {
		t.Fatal(err)
	}
	for ctx.Err() == nil && len(p.Frames()) < 3 {
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := p.Click(ctx, 100, 30); !errors.Is(err, browser.ErrDialogOpen) {
		t.Fatalf("the click: %v, want the dialog open", err)
	}
	start := time.Now()
	if err := in.Set(ctx, spec.ControllerUser); err != nil {
		t.Fatalf("a switch with a dialog open failed: %v", err)
	}
	// The frames the dialog holds (its renderer's: the top frame and the
	// same-site Company frame) are each given up after a second.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the switch took %s", d)
	}
	read := func(f browser.Frame) string {
		var v string
		if err := f.Call(ctx, "", `function(){ return String(navigator.poppy.controller) }`, &v); err != nil {
			t.Fatalf("reading %s: %v", f.URL, err)
		}
		return v
	}
	if err := p.HandleDialog(ctx, true, ""); err != nil {
		t.Fatal(err)
	}
	for _, f := range p.Frames() {
		if f.URL != "https://company.test/alerting" && f.URL != "https://company.test/leaf" {
			continue
		}
		for read(f) != "user" {
			select {
			case <-ctx.Done():
				t.Fatalf("%s never read user after the dialog", f.URL)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
}

// TestSetWithABusyPage: an endless script in a Company page does not hold
// up a switch of control: its renderer is held and the frame set within
// the bound, and the script, never stopped, reads each new value.
func TestSetWithABusyPage(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	reads := &reports{}
	mux := http.NewServeMux()
	mux.Handle("/", pagesHandler(map[string]string{
		// The loop reports each value it reads that differs from the last.
		"company.test/spinning": `<button style="position:fixed;left:0;top:0;width:200px;height:60px" onclick="
			let seen = '';
			for (;;) {
				const c = navigator.poppy.controller;
				if (c !== seen) { seen = c; navigator.sendBeacon('/report?at=' + Date.now() + '&controller=' + c) }
			}">spin</button>`,
	}))
	mux.Handle("company.test/report", reads)
	b, in := launch(t, ctx, "company.test", serveTLS(t, mux))
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Navigate(ctx, "https://company.test/spinning"); err != nil {
		t.Fatal(err)
	}
	cctx, ccancel := context.WithTimeout(ctx, time.Second)
	_ = p.Click(cctx, 100, 30) // the click's answer never comes: the page spins
	ccancel()
	reads.wait(t, ctx, "agent")
	for _, c := range []spec.Controller{spec.ControllerUser, spec.ControllerAgent} {
		start := time.Now()
		if err := in.Set(ctx, c); err != nil {
			t.Fatalf("a switch to %s with a busy page failed: %v", c, err)
		}
		if d := time.Since(start); d > switchBound {
			t.Errorf("the switch to %s took %s, over the bound of %s", c, d, switchBound)
		}
		reads.wait(t, ctx, string(c))
	}
}
