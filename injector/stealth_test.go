package injector_test

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/injector"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// probesHTML is a page that probes its browser the way pages tell an
// agent's browser from a person's (see the file).
//
//go:embed testdata/probes.html
var probesHTML string

// The probes page's hosts: one of the Company's, one of nobody's.
const (
	probesDomain     = "shop.test"
	probesCompanyURL = "https://www.shop.test/probes"
	probesOtherURL   = "https://news.test/probes"
)

// probeResult is what one run of the probes page found.
type probeResult struct {
	Seen struct {
		Poppy               string   `json:"poppy"`
		PoppyIn             bool     `json:"poppyIn"`
		Webdriver           bool     `json:"webdriver"`
		NavigatorOwn        []string `json:"navigatorOwn"`
		NavigatorForIn      []string `json:"navigatorForIn"`
		WindowOwn           []string `json:"windowOwn"`
		NotNative           []string `json:"notNative"`
		ConsoleReadsGetters bool     `json:"consoleReadsGetters"`
		WindowSize          string   `json:"windowSize"` // innerWidth x innerHeight x outerWidth x outerHeight x screen
	} `json:"seen"`
	MS map[string]float64 `json:"ms"` // each probe's time, by name, as the page measured it
}

// probeNames are the timed probes of the page, in its order.
var probeNames = []string{"debugger", "enumerate", "sources", "timers"}

// prober serves the probes page and tells each open copy of it, by key,
// when to run: a copy long-polls GET /next and posts its findings to
// /result. Nothing drives the page over DevTools.
type prober struct {
	mu      sync.Mutex
	next    map[string]chan struct{}
	results map[string]chan probeResult
	done    chan struct{} // closed at cleanup: every poll ends
}

func newProber(tb testing.TB) (*prober, []string) {
	pr := &prober{next: map[string]chan struct{}{}, results: map[string]chan probeResult{}, done: make(chan struct{})}
	args := serveTLS(tb, pr)
	tb.Cleanup(func() { close(pr.done) }) // before the server closes: it waits for the polls
	return pr, args
}

func (pr *prober) chans(key string) (chan struct{}, chan probeResult) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.next[key] == nil {
		pr.next[key] = make(chan struct{})
		pr.results[key] = make(chan probeResult, 1)
	}
	return pr.next[key], pr.results[key]
}

func (pr *prober) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	next, results := pr.chans(r.URL.Query().Get("k"))
	switch r.URL.Path {
	case "/probes":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, probesHTML)
	case "/next":
		select {
		case <-next:
			fmt.Fprint(w, "run")
		case <-pr.done:
			w.WriteHeader(http.StatusNoContent)
		case <-r.Context().Done():
		}
	case "/result":
		var res probeResult
		body, err := io.ReadAll(r.Body)
		if err == nil {
			err = json.Unmarshal(body, &res)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		results <- res
	default:
		http.NotFound(w, r)
	}
}

// run has the page open under key run its probes once, and returns what
// it found.
func (pr *prober) run(tb testing.TB, ctx context.Context, key string) probeResult {
	tb.Helper()
	next, results := pr.chans(key)
	select {
	case next <- struct{}{}:
	case <-ctx.Done():
		tb.Fatalf("waiting for the probes page %s to ask what to do: %v", key, ctx.Err())
	}
	select {
	case res := <-results:
		return res
	case <-ctx.Done():
		tb.Fatalf("waiting for the probes page %s to report: %v", key, ctx.Err())
	}
	return probeResult{}
}

// runtimeBrowser launches a browser the way the runtime does for a
// Company: the Poppy-Extensions header on its requests, the marks scanner
// in every frame, navigator.poppy on its pages, window input blocked (the
// agent holds control).
func runtimeBrowser(tb testing.TB, ctx context.Context, args []string) (*browser.Browser, *injector.Injector) {
	tb.Helper()
	b, err := browser.Launch(ctx, &browser.Options{
		Args:           args,
		CompanyHost:    func(host string) bool { return spec.MatchesDomain(probesDomain, host) },
		CompanyHeaders: map[string]string{spec.HeaderExtensions: "browser-control=v1"},
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := b.Close(); err != nil {
			tb.Errorf("closing the browser: %v", err)
		}
	})
	if err := b.SetScript(ctx, "marks", marks.Script()); err != nil {
		tb.Fatal(err)
	}
	in, err := injector.New(&injector.Options{Domain: probesDomain, Browser: b})
	if err != nil {
		tb.Fatal(err)
	}
	runInjector(tb, in)
	if err := in.Install(ctx); err != nil {
		tb.Fatal(err)
	}
	if err := b.SetWindowInput(ctx, false); err != nil {
		tb.Fatal(err)
	}
	return b, in
}

// openProbes opens the probes page at u under key in the runtime's
// browser and in a plain Chromium with the same flags, and runs it once in
// each (the first run warms up).
func openProbes(tb testing.TB, ctx context.Context, pr *prober, b *browser.Browser, args []string, u, key string) {
	tb.Helper()
	browsertest.StartPlain(tb, args, u+"?k=plain-"+key)
	p, err := b.NewPage(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := p.Navigate(ctx, u+"?k=poppy-"+key); err != nil {
		tb.Fatal(err)
	}
	pr.run(tb, ctx, "plain-"+key)
	pr.run(tb, ctx, "poppy-"+key)
}

// TestPagesCannotTell: a page outside the Company's website finds nothing
// of the runtime (section 6: "so other websites can't tell that the
// browser is a Personal Agent's"): its debugger statements pause nothing
// (no pause reaches the DevTools protocol), navigator, window and the
// source text of builtins are what a plain Chromium with the same flags
// shows (its window's inner and outer size and its screen too), and no
// DevTools client reads what the page logs. The Company's
// page differs from a plain one by navigator.poppy alone, and its debugger
// statements pause nothing either while no switch of control is under way.
func TestPagesCannotTell(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	pr, args := newProber(t)
	b, in := runtimeBrowser(t, ctx, args)
	for _, site := range []struct{ key, url string }{{"other", probesOtherURL}, {"company", probesCompanyURL}} {
		openProbes(t, ctx, pr, b, args, site.url, site.key)
		before := browsertest.DebuggerPauses(b)
		plain := pr.run(t, ctx, "plain-"+site.key)
		poppy := pr.run(t, ctx, "poppy-"+site.key)
		if n := browsertest.DebuggerPauses(b) - before; n != 0 {
			t.Errorf("%s: the page's debugger statements paused it %d times", site.key, n)
		}
		want := plain.Seen
		if site.key == "company" {
			if poppy.Seen.Poppy != "object" || !slices.Equal(poppy.Seen.NavigatorOwn, []string{"poppy"}) {
				t.Errorf("the Company's page has no navigator.poppy: %+v", poppy.Seen)
			}
			want.Poppy, want.PoppyIn = "object", true
			want.NavigatorOwn = []string{"poppy"}
			want.NavigatorForIn = append([]string{"poppy"}, want.NavigatorForIn...)
		}
		got := poppy.Seen
		for _, c := range []struct {
			what      string
			got, want any
		}{
			{"typeof navigator.poppy", got.Poppy, want.Poppy},
			{"'poppy' in navigator", got.PoppyIn, want.PoppyIn},
			{"navigator.webdriver", got.Webdriver, want.Webdriver},
			{"navigator's own properties", got.NavigatorOwn, want.NavigatorOwn},
			{"navigator's for-in keys", got.NavigatorForIn, want.NavigatorForIn},
			{"window's own properties", got.WindowOwn, want.WindowOwn},
			{"builtins whose source is not native", got.NotNative, want.NotNative},
			{"a console call reads an object's getters", got.ConsoleReadsGetters, want.ConsoleReadsGetters},
			{"the window's size (inner, outer, screen)", got.WindowSize, want.WindowSize},
		} {
			if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
				t.Errorf("%s: %s: %v under poppy-browser, %v in a plain Chromium", site.key, c.what, c.got, c.want)
			}
		}
	}
	// A switch of control leaves the debugger as it found it: pages
	// still pause nothing.
	for _, c := range []spec.Controller{spec.ControllerUser, spec.ControllerAgent} {
		if err := in.Set(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, key := range []string{"other", "company"} {
		before := browsertest.DebuggerPauses(b)
		pr.run(t, ctx, "poppy-"+key)
		if n := browsertest.DebuggerPauses(b) - before; n != 0 {
			t.Errorf("%s, after switches: the page's debugger statements paused it %d times", key, n)
		}
	}
}

// BenchmarkPageProbes runs the probes page (2,000 debugger statements,
// navigator's enumeration, the source text of builtins, a setTimeout(0)
// chain) on a page outside the Company's website and on the Company's, in
// the runtime's browser and in a plain Chromium with the same flags, and
// reports each probe's time in both and their ratio (poppy/plain).
//
//	go test -run '^$' -bench PageProbes -benchtime 20x ./injector/
func BenchmarkPageProbes(b *testing.B) {
	ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute)
	defer cancel()
	pr, args := newProber(b)
	rt, _ := runtimeBrowser(b, ctx, args)
	for _, site := range []struct{ key, url string }{{"other", probesOtherURL}, {"company", probesCompanyURL}} {
		b.Run(site.key, func(b *testing.B) {
			openProbes(b, ctx, pr, rt, args, site.url, site.key)
			poppy, plain := map[string]float64{}, map[string]float64{}
			n := 0
			for b.Loop() {
				for _, probe := range []struct {
					key string
					sum map[string]float64
				}{{"plain-" + site.key, plain}, {"poppy-" + site.key, poppy}} {
					res := pr.run(b, ctx, probe.key)
					for k, v := range res.MS {
						probe.sum[k] += v
					}
				}
				n++
			}
			var summary []string
			for _, name := range probeNames {
				po, pl := poppy[name]/float64(n), plain[name]/float64(n)
				b.ReportMetric(po, name+"-ms")
				b.ReportMetric(pl, name+"-plain-ms")
				if pl > 0 {
					b.ReportMetric(po/pl, name+"-x")
				}
				summary = append(summary, fmt.Sprintf("%s %.3f ms (plain %.3f ms)", name, po, pl))
			}
			b.Logf("%s: %s", site.key, strings.Join(summary, ", "))
		})
	}
}
