package browser_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
)

// The package's shared fixtures: the hosts company.test and other.test, and
// one Chromium (started by the first test that needs it) that sends the
// Company header to company.test.
var (
	testHosts *hosts
	chromium  *browsertest.Browser
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	h, stop, err := serveHosts()
	if err != nil {
		fmt.Fprintln(os.Stderr, "browser tests: serving the test hosts:", err)
		return 1
	}
	defer stop()
	testHosts = h
	chromium = browsertest.New(hostsOptions(h))
	return browsertest.Run(m, chromium)
}

// hostsOptions launch a browser that maps *.test to h and sends the Company
// header to company.test only.
func hostsOptions(h *hosts) *browsertest.Options {
	return &browsertest.Options{
		Browser: &browser.Options{
			CompanyHost:    func(host string) bool { return host == "company.test" },
			CompanyHeaders: map[string]string{"Poppy-Extensions": `"browser-control";v="1"`},
		},
		Args: h.args,
	}
}

// ownBrowser is a browser of the test's own, for a test that changes what
// every page of a browser gets (scripts, window input); it is closed, and
// its profile checked gone, at cleanup.
func ownBrowser(t *testing.T) *browsertest.Browser {
	t.Helper()
	b := browsertest.New(hostsOptions(testHosts))
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	})
	return b
}

// hosts serves company.test and other.test over plain HTTP on loopback and
// records the Poppy-Extensions header each request carried.
type hosts struct {
	mu   sync.Mutex
	seen map[string][]string // host+path -> header values
	args []string
}

// serveHosts starts the hosts on loopback; stop ends the server.
func serveHosts() (_ *hosts, stop func(), _ error) {
	h := &hosts{seen: map[string][]string{}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.seen[r.Host+r.URL.Path] = append(h.seen[r.Host+r.URL.Path], r.Header.Get("Poppy-Extensions"))
		h.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		switch {
		case r.URL.Path == "/link":
			fmt.Fprint(w, `<a id="go" href="/slow-landing" style="position:fixed;left:0;top:0;width:200px;height:100px;display:block">go</a>`)
		case r.URL.Path == "/slow-landing":
			time.Sleep(300 * time.Millisecond) // the server, not the test, is slow
			fmt.Fprint(w, `<title>landed</title>`)
		case r.URL.Path == "/siblings": // frameorder_test.go
			fmt.Fprint(w, `<title>siblings</title><iframe src="http://other.test/s1"></iframe><iframe src="http://company.test/s2"></iframe>`+
				`<iframe src="http://third.test/s3"></iframe><iframe src="http://company.test/s4"></iframe>`)
		case r.URL.Path == "/fragments": // nav_test.go
			fmt.Fprint(w, `<title>fragments</title><p id="part">part</p>`)
		case r.URL.Path == "/redirect-off":
			http.Redirect(w, r, "http://other.test/landing", http.StatusFound)
		case r.URL.Path == "/redirect-on":
			http.Redirect(w, r, "http://company.test/landing", http.StatusFound)
		case r.Host == "other.test" && r.URL.Path == "/":
			fmt.Fprint(w, `<title>other</title><iframe src="http://company.test/inner"></iframe>`)
		case r.URL.Path == "/":
			fmt.Fprint(w, `<title>company</title><iframe src="http://other.test/inner"></iframe><script>fetch("/api")</script>`)
		default:
			fmt.Fprint(w, `<p>`+r.Host+`</p><script>fetch("/api/inner")</script>`)
		}
	})}
	go srv.Serve(l)
	h.args = []string{"--host-resolver-rules=MAP *.test " + l.Addr().String()}
	return h, func() { srv.Close() }, nil
}

func (h *hosts) header(key string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.seen[key])
}

func TestCompanyHeaderOnlyOnCompanyRequests(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	h := testHosts
	// Other tests (and earlier runs under -count) reach these hosts from
	// browsers with no Company header: forget what they sent.
	h.mu.Lock()
	clear(h.seen)
	h.mu.Unlock()
	p := chromium.NewPage(t)
	const want = `"browser-control";v="1"`
	for _, u := range []string{"http://company.test/", "http://other.test/", "http://company.test/redirect-off", "http://company.test/redirect-on"} {
		if _, err := p.Navigate(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	// The in-frame fetches finish after load; wait for them.
	for _, key := range []string{"company.test/api/inner", "other.test/api/inner"} {
		for len(h.header(key)) == 0 {
			select {
			case <-ctx.Done():
				t.Fatalf("no request for %s", key)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	cases := []struct {
		key  string
		want string
	}{
		{"company.test/", want},             // navigation
		{"company.test/api", want},          // fetch from the page
		{"company.test/inner", want},        // out-of-process iframe inside other.test
		{"company.test/api/inner", want},    // fetch from that iframe
		{"company.test/redirect-off", want}, // before the redirect
		{"company.test/redirect-on", want},  // before the redirect
		{"company.test/landing", want},      // Company-to-Company redirect hop
		{"other.test/", ""},                 // third party
		{"other.test/inner", ""},            // third-party iframe in a Company page
		{"other.test/api/inner", ""},        // its fetch
		{"other.test/landing", ""},          // Company-to-elsewhere redirect hop
	}
	for _, c := range cases {
		got := h.header(c.key)
		if len(got) == 0 {
			t.Errorf("%s: no request seen", c.key)
			continue
		}
		for _, v := range got {
			if v != c.want {
				t.Errorf("%s: Poppy-Extensions = %q, want %q", c.key, v, c.want)
			}
		}
	}
}

func TestScriptsRunInEveryFrameBeforeThePage(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	own := ownBrowser(t) // the probe script stays in every page of its browser
	b := own.Browser(t)
	if err := b.SetScript(ctx, "probe", browser.Script{World: "probe", Source: `globalThis.probeHost = location.hostname`}); err != nil {
		t.Fatal(err)
	}
	p := own.NewPage(t)
	if _, err := p.Navigate(ctx, "http://other.test/"); err != nil {
		t.Fatal(err)
	}
	frames := withIframe(t, ctx, p)
	for _, f := range frames {
		var host string
		if err := f.Call(ctx, "probe", "function(){ return globalThis.probeHost }", &host); err != nil {
			t.Fatalf("frame %s: %v", f.URL, err)
		}
		if want := hostOf(f.URL); host != want {
			t.Errorf("frame %s: the script saw %q", f.URL, host)
		}
		// The page's own world does not see the isolated world's globals.
		var leaked bool
		if err := f.Call(ctx, "", "function(){ return 'probeHost' in globalThis }", &leaked); err != nil || leaked {
			t.Errorf("frame %s: isolated global leaked into the page (%v, %v)", f.URL, leaked, err)
		}
	}
	if !slices.ContainsFunc(frames, func(f browser.Frame) bool { return f.Remote }) {
		t.Error("the company.test iframe is not out of process: site isolation is off")
	}
}

// TestSettleWaitsForTheNavigationAClickStarts: after a click on a link, the
// next look at the page must see where it led (agent actions settle with it).
func TestSettleWaitsForTheNavigationAClickStarts(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	p := chromium.NewPage(t)
	if _, err := p.Navigate(ctx, "http://company.test/link"); err != nil {
		t.Fatal(err)
	}
	if err := p.Click(ctx, 100, 50); err != nil {
		t.Fatal(err)
	}
	if err := p.Settle(ctx); err != nil {
		t.Fatalf("waiting for the page to settle after the click: %v", err)
	}
	if got := p.URL(); got != "http://company.test/slow-landing" {
		t.Fatalf("after Settle the page is at %s, want the link's target", got)
	}
	if title := p.Title(ctx); title != "landed" {
		t.Fatalf("title %q: the new document has not loaded", title)
	}
}

func hostOf(u string) string {
	for _, p := range []string{"http://company.test/", "http://other.test/"} {
		if len(u) >= len(p) && u[:len(p)] == p {
			return p[7 : len(p)-1]
		}
	}
	return ""
}

func BenchmarkLaunch(b *testing.B) {
	for b.Loop() {
		ctx, cancel := context.WithTimeout(b.Context(), time.Minute) // launching and opening a page
		defer cancel()
		br, err := browser.Launch(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := br.NewPage(ctx); err != nil {
			b.Fatal(err)
		}
		br.Close()
	}
}

// TestScriptsRunInTheOrderTheyWereSet: a script set later (here one of a
// browser context) may build on one set before it in the same world, in
// every new tab and frame: the gate's new-document guard builds on the
// marks scanner. A new target got its scripts in map order, so about half
// of the new tabs ran them the other way round.
func TestScriptsRunInTheOrderTheyWereSet(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	own := ownBrowser(t)
	b := own.Browser(t)
	if err := b.SetScript(ctx, "first", browser.Script{World: "order", Source: `globalThis.first = true`}); err != nil {
		t.Fatal(err)
	}
	c, err := b.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.WithoutCancel(ctx))
	if err := c.SetScript(ctx, "second", browser.Script{World: "order", Source: `globalThis.sawFirst = globalThis.first === true`, StartOnly: true}); err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		p, err := c.NewPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Navigate(ctx, "http://other.test/"); err != nil {
			t.Fatal(err)
		}
		for _, f := range withIframe(t, ctx, p) {
			var saw bool
			if err := f.Call(ctx, "order", "function(){ return globalThis.sawFirst === true }", &saw); err != nil {
				t.Fatalf("tab %d, frame %s: %v", i, f.URL, err)
			}
			if !saw {
				t.Errorf("tab %d, frame %s: the script set second ran before the one set first", i, f.URL)
			}
		}
	}
}

// withIframe waits until p (at other.test/, which frames company.test)
// lists its iframe, and returns its frames.
func withIframe(t *testing.T, ctx context.Context, p *browser.Page) []browser.Frame {
	t.Helper()
	for {
		if frames := p.Frames(); len(frames) >= 2 {
			return frames
		}
		select {
		case <-ctx.Done():
			t.Fatal("the iframe never attached")
		case <-time.After(20 * time.Millisecond):
		}
	}
}
