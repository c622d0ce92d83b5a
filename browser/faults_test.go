package browser_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
)

func faultSite(t *testing.T) *site {
	s := newSite(t)
	s.html("company.test/busy", `<title>busy</title><body style="margin:0"><button style="`+fixedBox+`;top:0" onclick="for (;;) {}">spin</button></body>`)
	s.html("other.test/plain", `<title>plain</title>`)
	s.html("company.test/plain", `<title>plain</title>`)
	s.handle("company.test/never", func(w http.ResponseWriter, r *http.Request) {
		select { // the server never answers
		case <-s.stop:
		case <-r.Context().Done():
		}
	})
	s.html("company.test/stalled", `<title>stalled</title><img src="/never">`)
	s.handle("company.test/file.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="ticket.pdf"`)
		w.Header().Set("Content-Type", "application/pdf")
		fmt.Fprint(w, "%PDF-1.4")
	})
	s.html("company.test/files", `<body style="margin:0">
<a href="/file.pdf" style="`+fixedBox+`;top:0">download</a>
<input type="file" style="`+fixedBox+`;top:100px"></body>`)
	s.html("company.test/tls-link", `<a href="https://company.test/files" style="`+fixedBox+`;top:0">tls</a>`)
	s.handle("company.test/private", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="staff"`)
		http.Error(w, "who are you", http.StatusUnauthorized)
	})
	return s
}

// TestBusyPageFailsAtTheBound: an endless script makes input and script
// calls fail with ErrPageBusy at the bound, not after a minute, and a
// navigation elsewhere recovers the tab.
func TestBusyPageFailsAtTheBound(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	b := launchSite(t, ctx, faultSite(t), &browser.Options{BusyTimeout: 2 * time.Second})
	p := openPage(t, ctx, b)
	if _, err := p.Navigate(ctx, "http://company.test/busy"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := p.Click(ctx, 100, 30)
	if err == nil {
		// The click itself may be acknowledged before the script runs.
		_, err = evalIn(ctx, p.MainFrame(), `function(){ return document.title }`)
	}
	within(t, "a call on a busy page", start, 6*time.Second)
	wantErr(t, "a call on a busy page", err, browser.ErrPageBusy)

	// What a switch of control does, with the busy tab open: change the
	// script, reach every frame. Neither waits for the busy tab.
	start = time.Now()
	changed := strings.Replace(companyScript, `"agent"`, `"user"`, 1)
	if err := b.SetScript(ctx, "company", browser.Script{Source: changed}); err != nil {
		t.Fatal(err)
	}
	fails := b.EachFrame(ctx, time.Second, func(ctx context.Context, _ *browser.Page, f browser.Frame) error {
		_, err := evalIn(ctx, f, `function(){ return "x" }`)
		return err
	})
	within(t, "a script change and a call in every frame with a busy tab", start, 3*time.Second)
	if len(fails) != 1 || fails[0].Page != p {
		t.Errorf("EachFrame failures %+v, want the busy tab's frame only", fails)
	}

	if _, err := p.Navigate(ctx, "http://company.test/plain"); err != nil {
		t.Fatalf("navigating away from the busy page: %v", err)
	}
	if got, err := evalIn(ctx, p.MainFrame(), `function(){ return document.title + " " + navigator.poppyTest }`); err != nil || got != "plain user" {
		t.Errorf("after leaving the busy page: %q, %v; want the page with the new script", got, err)
	}
}

// TestNavigationBounds: a server that never answers makes Navigate fail
// with ErrLoadTimeout at the bound; a page whose image never loads returns
// at the bound, not loaded but usable.
func TestNavigationBounds(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	b := launchSite(t, ctx, faultSite(t), &browser.Options{LoadTimeout: 2 * time.Second})
	p := openPage(t, ctx, b)
	start := time.Now()
	_, err := p.Navigate(ctx, "http://company.test/never")
	within(t, "a navigation to a server that never answers", start, 5*time.Second)
	wantErr(t, "a navigation to a server that never answers", err, browser.ErrLoadTimeout)

	start = time.Now()
	r, err := p.Navigate(ctx, "http://company.test/stalled")
	within(t, "a navigation to a page that never finishes loading", start, 5*time.Second)
	if err != nil || r.Loaded || r.URL != "http://company.test/stalled" {
		t.Fatalf("Navigate = %+v, %v; want the page, not loaded, no error", r, err)
	}
	if got := title(t, ctx, p); got != "stalled" {
		t.Errorf("title %q", got)
	}
	start = time.Now()
	if err := p.Settle(ctx); err != nil {
		t.Errorf("Settle on a page still loading: %v", err)
	}
	within(t, "Settle on a page still loading", start, 5*time.Second)
}

// TestCrashedTab: a crashed renderer makes calls fail at once with
// ErrCrashed and the tab say so; a navigation recovers it; a crashed tab
// does not hold up a call across every frame.
func TestCrashedTab(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	b := launchSite(t, ctx, faultSite(t), nil)
	first := openPage(t, ctx, b) // stands for an unused first tab
	p := openPage(t, ctx, b)
	if _, err := p.Navigate(ctx, "http://other.test/plain"); err != nil {
		t.Fatal(err)
	}
	_ = first.Goto(ctx, "chrome://crash") // the browser's own way to crash a renderer
	poll(t, ctx, "the crash to be reported", first.Crashed)
	if tab := first.Tabs().List(ctx)[0]; !tab.Crashed {
		t.Errorf("the tab list does not say the tab crashed: %+v", tab)
	}
	start := time.Now()
	_, err := evalIn(ctx, first.MainFrame(), `function(){ return "x" }`)
	within(t, "a call in a crashed tab", start, time.Second)
	wantErr(t, "a call in a crashed tab", err, browser.ErrCrashed)

	start = time.Now()
	fails := b.EachFrame(ctx, 3*time.Second, func(ctx context.Context, _ *browser.Page, f browser.Frame) error {
		_, err := evalIn(ctx, f, `function(){ return "x" }`)
		return err
	})
	within(t, "a call across every frame with a crashed tab", start, 2*time.Second)
	if len(fails) != 1 || fails[0].Page != first || !errors.Is(fails[0].Err, browser.ErrCrashed) {
		t.Errorf("EachFrame failures %+v, want the crashed tab only", fails)
	}

	// A script changed while the tab is crashed: the change does not wait
	// for the dead renderer, and the recovered tab runs the new version
	// only.
	start = time.Now()
	changed := strings.Replace(companyScript, `"agent"`, `"user"`, 1)
	if err := b.SetScript(ctx, "company", browser.Script{Source: changed}); err != nil {
		t.Fatal(err)
	}
	within(t, "changing a script with a crashed tab", start, 2*time.Second)
	if _, err := first.Navigate(ctx, "http://company.test/plain"); err != nil {
		t.Fatalf("navigating the crashed tab: %v", err)
	}
	if first.Crashed() {
		t.Error("the tab still says crashed after a navigation")
	}
	if got, err := evalIn(ctx, first.MainFrame(), `function(){ return document.title + " " + navigator.poppyTest }`); err != nil || got != "plain user" {
		t.Errorf("after recovering: %q, %v; want the page with the new script", got, err)
	}
}

// TestBrowserGone: when Chromium dies, every call fails within a second or
// two with ErrBrowserGone.
func TestBrowserGone(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := faultSite(t)
	b, err := browser.Launch(ctx, &browser.Options{Args: s.args})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p := openPage(t, ctx, b)
	if _, err := p.Navigate(ctx, "http://other.test/plain"); err != nil {
		t.Fatal(err)
	}
	b.KillForTest()
	select {
	case <-b.Crashed():
	case <-time.After(5 * time.Second):
		t.Fatal("the browser's death went unnoticed for 5 s")
	}
	wantErr(t, "Gone", b.Gone(), browser.ErrBrowserGone)
	start := time.Now()
	_, err = evalIn(ctx, p.MainFrame(), `function(){ return "x" }`)
	wantErr(t, "a script call", err, browser.ErrBrowserGone)
	_, err = p.Navigate(ctx, "http://other.test/plain")
	wantErr(t, "a navigation", err, browser.ErrBrowserGone)
	wantErr(t, "a click", p.Click(ctx, 1, 1), browser.ErrBrowserGone)
	_, err = b.NewPage(ctx)
	wantErr(t, "a new page", err, browser.ErrBrowserGone)
	within(t, "four calls on a dead browser", start, time.Second)
}

// TestAttachTimesOut: --cdp-url to a port that accepts connections and
// never answers fails at the connect bound.
func TestAttachTimesOut(t *testing.T) {
	addr := browsertest.SilentListener(t)
	for _, u := range []string{"ws://" + addr + "/devtools/browser/x", "http://" + addr} {
		start := time.Now()
		_, err := browser.Launch(t.Context(), &browser.Options{CDPURL: u, ConnectTimeout: time.Second})
		if err == nil {
			t.Fatalf("attaching to %s succeeded", u)
		}
		within(t, "attaching to a silent endpoint", start, 3*time.Second)
	}
}

// TestDownloadsFileChoosersAndAuth: a download is refused and reported, a
// file chooser opens no dialog and is reported, an HTTP authentication
// challenge is cancelled and reported, a TLS failure is a NavError.
func TestDownloadsFileChoosersAndAuth(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	b := launchSite(t, ctx, faultSite(t), nil)
	p := openPage(t, ctx, b)
	if _, err := p.Navigate(ctx, "http://company.test/files"); err != nil {
		t.Fatal(err)
	}
	if err := p.Click(ctx, 100, 30); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the download to be reported", func() bool { return len(p.Downloads()) == 1 })
	if d := p.Downloads()[0]; d.Filename != "ticket.pdf" || d.URL != "http://company.test/file.pdf" {
		t.Errorf("download %+v", d)
	}
	if err := p.Click(ctx, 100, 130); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the file chooser to be reported", func() bool { return len(p.FileChoosers()) == 1 })

	start := time.Now()
	r, err := p.Navigate(ctx, "http://company.test/private")
	within(t, "a page behind HTTP authentication", start, 5*time.Second)
	if err != nil || r.Status != http.StatusUnauthorized {
		t.Errorf("Navigate = %+v, %v; want the 401 page", r, err)
	}
	if a := p.AuthChallenges(); len(a) != 1 || a[0].Realm != "staff" || a[0].Scheme != "basic" {
		t.Errorf("auth challenges %+v", a)
	}

	// The site speaks plain HTTP: a TLS handshake with it fails, as a
	// NavError from Navigate, and as an error page after a link.
	_, err = p.Navigate(ctx, "https://company.test/files")
	var nav *browser.NavError
	if !errors.As(err, &nav) {
		t.Errorf("a TLS failure: %v, want a NavError", err)
	}
	if _, err := p.Navigate(ctx, "http://company.test/tls-link"); err != nil {
		t.Fatal(err)
	}
	if err := p.Click(ctx, 100, 30); err != nil {
		t.Fatal(err)
	}
	if err := p.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	if loc := p.Location(); loc.Unreachable != "https://company.test/files" {
		t.Errorf("after a link to a TLS failure: %+v, want the unreachable URL", loc)
	}
}

// TestGoneWinsOverAnEmptyTabList: a browser that goes away may drop its
// tabs before its connection ends (a pool closing it, Close). Once it is
// gone, the tab group answers with its last tab, whose calls fail with
// ErrBrowserGone: "no tab" never stands for "no browser", whichever came
// first. Both orders are forced here: the tab list empties while the
// browser lives, then the browser dies; and Close, which detaches tabs
// before the connection ends.
func TestGoneWinsOverAnEmptyTabList(t *testing.T) {
	for _, end := range []string{"killed", "closed"} {
		t.Run(end, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			s := faultSite(t)
			b, err := browser.Launch(ctx, &browser.Options{Args: s.args})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			p := openPage(t, ctx, b)
			tabs := p.Tabs()
			if err := tabs.Close(ctx, 0); err != nil {
				t.Fatal(err)
			}
			for tabs.Active() != nil {
				select {
				case <-tabs.Changed():
				case <-ctx.Done():
					t.Fatal("the closed tab was still listed active when the test timed out")
				}
			}
			switch end {
			case "killed":
				profile := browsertest.ProfileDir(b)
				b.KillForTest()
				select {
				case <-b.Crashed():
				case <-ctx.Done():
					t.Fatal("the browser's death was not noticed before the test timed out")
				}
				// A crash cleans up without waiting for Close: no profile
				// (cookies) is left behind by a runtime that never closes.
				tick := time.NewTicker(10 * time.Millisecond)
				defer tick.Stop()
				for _, err := os.Stat(profile); !errors.Is(err, fs.ErrNotExist); _, err = os.Stat(profile) {
					select {
					case <-tick.C:
					case <-ctx.Done():
						t.Fatalf("the crashed browser's profile %s was still there when the test timed out", profile)
					}
				}
			case "closed":
				if err := b.Close(); err != nil {
					t.Fatal(err)
				}
			}
			last := tabs.Active()
			if last == nil {
				t.Fatal("no active tab once the browser is gone: a caller would say no_page, not browser_gone")
			}
			wantErr(t, "the last tab's BrowserGone", last.BrowserGone(), browser.ErrBrowserGone)
			_, err = last.Navigate(ctx, "http://other.test/plain")
			wantErr(t, "a navigation in the last tab", err, browser.ErrBrowserGone)
		})
	}
}
