package injector_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/injector"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// The package's shared fixtures: the demo Company's site and one Chromium
// that maps *.test to it, set up in TestMain.
var (
	site     *testsite.Site
	chromium *browsertest.Browser
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	if site, err = testsite.New(nil); err != nil {
		fmt.Fprintln(os.Stderr, "injector tests: making the test site:", err)
		return 1
	}
	if err := site.Start("127.0.0.1:0"); err != nil {
		fmt.Fprintln(os.Stderr, "injector tests: starting the test site:", err)
		return 1
	}
	defer site.Close()
	chromium = browsertest.New(&browsertest.Options{Args: site.BrowserArgs()})
	return browsertest.Run(m, chromium)
}

// setup gives a test the site (its records cleared), a fresh page of the
// shared browser and an injector installed in it. Tests of this package do
// not run in parallel: the injector's script is browser-wide.
func setup(t testing.TB, ctx context.Context) (*testsite.Site, *browser.Page, *injector.Injector) {
	t.Helper()
	return setupWith(t, ctx, browsertest.PageOptions{})
}

// setupWith is setup with page options (a hostile fixture that throws on
// purpose allows exceptions).
func setupWith(t testing.TB, ctx context.Context, opts browsertest.PageOptions) (*testsite.Site, *browser.Page, *injector.Injector) {
	t.Helper()
	site.Reset()
	b := chromium.Browser(t)
	in, err := injector.New(&injector.Options{Domain: testsite.CompanyDomain, Browser: b})
	if err != nil {
		t.Fatal(err)
	}
	runInjector(t, in)
	if err := in.Install(ctx); err != nil {
		t.Fatal(err)
	}
	return site, chromium.NewPageWith(t, opts), in
}

// runInjector runs in's background work (Injector.Run) until the test
// ends, then ends it and waits for it: Run must return within its bound,
// a held frame released.
func runInjector(tb testing.TB, in *injector.Injector) {
	tb.Helper()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- in.Run(ctx) }()
	tb.Cleanup(func() {
		stop()
		select {
		case err := <-done:
			if err != nil {
				tb.Errorf("running the injector: %v", err)
			}
		case <-time.After(10 * time.Second):
			tb.Errorf("the injector's Run did not return within 10s of its ctx's end")
		}
	})
}

// readAll reads navigator.poppy in every frame of the page, by host.
func readAll(t *testing.T, ctx context.Context, p *browser.Page) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, f := range p.Frames() {
		var v string
		err := f.Call(ctx, "", `function(){ return 'poppy' in navigator ? String(navigator.poppy.controller) : "absent" }`, &v)
		if err != nil {
			t.Fatalf("reading frame %s: %v", f.URL, err)
		}
		got[f.URL] = v
	}
	return got
}

func TestControllerInEveryCompanyFrameOnly(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	site, p, in := setup(t, ctx)
	if _, err := p.Navigate(ctx, testsite.CheckInURL()); err != nil {
		t.Fatal(err)
	}
	if _, err := site.WaitFrameReport(ctx, func(f testsite.FrameReport) bool { return f.Host == testsite.PartnerHost }); err != nil {
		t.Fatalf("waiting for the partner.test frame to report its load: %v", err)
	}
	remote := false
	for _, f := range p.Frames() {
		remote = remote || f.Remote
	}
	if !remote {
		t.Fatal("partner.test frame is not out of process: site isolation is off")
	}
	for _, want := range []spec.Controller{spec.ControllerUser, spec.ControllerAgent, spec.ControllerUser} {
		start := time.Now()
		if err := in.Set(ctx, want); err != nil {
			t.Fatal(err)
		}
		t.Logf("set %s in %v", want, time.Since(start))
		got := readAll(t, ctx, p)
		for u, v := range got {
			wantV := string(want)
			if !spec.MatchesURL(testsite.CompanyDomain, u) {
				wantV = "absent"
			}
			if v != wantV {
				t.Errorf("after Set(%s): frame %s reads %q, want %q", want, u, v, wantV)
			}
		}
		if len(got) < 3 {
			t.Errorf("only %d frames seen: %v", len(got), got)
		}
	}
	// A document created during the User's turn starts with "user".
	if _, err := p.Navigate(ctx, testsite.BookingURL()); err != nil {
		t.Fatal(err)
	}
	for u, v := range readAll(t, ctx, p) {
		if v != "user" {
			t.Errorf("new document %s reads %q, want user", u, v)
		}
	}
}

func TestNoTraceOffSite(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, p, _ := setup(t, ctx)
	if _, err := p.Navigate(ctx, "https://partner.test/landing"); err != nil {
		t.Fatal(err)
	}
	var probe struct {
		Poppy string
		In    bool
		Keys  []string // own properties of navigator: none in a plain browser
	}
	err := p.MainFrame().Call(ctx, "", `function(){
		return {Poppy: typeof navigator.poppy, In: 'poppy' in navigator, Keys: Object.getOwnPropertyNames(navigator)};
	}`, &probe)
	if err != nil {
		t.Fatal(err)
	}
	if probe.Poppy != "undefined" || probe.In || len(probe.Keys) != 0 {
		t.Fatalf("partner.test sees %+v", probe)
	}
}

// TestNothingLeaksToPatchedPages: a page that patches the functions a script
// could call learns nothing when control changes, on a third-party host or
// on the Company's (section 6: other websites cannot tell; read-only).
func TestNothingLeaksToPatchedPages(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, p, in := setup(t, ctx)
	const patch = `function(){
		window.captured = [];
		for (const name of ["apply", "call", "bind"]) {
			const orig = Function.prototype[name];
			Function.prototype[name] = function(...args) { window.captured.push(JSON.stringify(args)); return orig.apply(this, args) };
		}
		const define = Object.defineProperty;
		Object.defineProperty = function(...args) { window.captured.push("defineProperty " + String(args[1])); return define(...args) };
		const U = URL;
		window.URL = function(...args) { window.captured.push("URL " + args[0]); return new U(...args) };
	}`
	for _, u := range []string{"https://partner.test/landing", testsite.CheckInURL()} {
		if _, err := p.Navigate(ctx, u); err != nil {
			t.Fatal(err)
		}
		if err := p.MainFrame().Call(ctx, "", patch, nil); err != nil {
			t.Fatal(err)
		}
		for _, c := range []spec.Controller{spec.ControllerUser, spec.ControllerAgent} {
			if err := in.Set(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		var captured []string
		if err := p.MainFrame().Call(ctx, "", `function(){ return window.captured }`, &captured); err != nil {
			t.Fatal(err)
		}
		for _, c := range captured {
			if strings.Contains(c, testsite.CompanyDomain) || len(c) > 60 {
				t.Errorf("%s: the page saw %q", u, c)
			}
		}
	}
}
