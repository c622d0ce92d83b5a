package injector_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/injector"
	"github.com/poppy-browser/poppy-browser/spec"
)

// serveHTTPS serves pages (keyed by host and path) over HTTPS on loopback
// and returns the Chromium flags that send *.test to it and trust its
// certificate by its SPKI pin.
func serveHTTPS(t testing.TB, pages map[string]string) []string {
	t.Helper()
	return serveTLS(t, pagesHandler(pages))
}

func pagesHandler(pages map[string]string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, pages[r.Host+r.URL.Path])
	})
}

// serveTLS serves h like serveHTTPS.
func serveTLS(t testing.TB, h http.Handler) []string {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	sum := sha256.Sum256(srv.Certificate().RawSubjectPublicKeyInfo)
	return []string{
		"--host-resolver-rules=MAP *.test " + srv.Listener.Addr().String(),
		"--ignore-certificate-errors-spki-list=" + base64.StdEncoding.EncodeToString(sum[:]),
	}
}

// launch starts a Chromium of the test's own with args and an injector
// for domain installed in it.
func launch(t *testing.T, ctx context.Context, domain string, args []string) (*browser.Browser, *injector.Injector) {
	t.Helper()
	return launchWith(t, ctx, injector.Options{Domain: domain}, args)
}

// launchWith is launch with the injector's options opts (its Browser set
// here).
func launchWith(t *testing.T, ctx context.Context, opts injector.Options, args []string) (*browser.Browser, *injector.Injector) {
	t.Helper()
	b, err := browser.Launch(ctx, &browser.Options{Args: args})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("closing the browser: %v", err)
		}
	})
	opts.Browser = b
	in, err := injector.New(&opts)
	if err != nil {
		t.Fatal(err)
	}
	runInjector(t, in)
	if err := in.Install(ctx); err != nil {
		t.Fatal(err)
	}
	return b, in
}

// spinner keeps its renderer's main thread busy: in slices re-queued with
// setTimeout(0), or in one long loop at a time. It counts its slices, so a
// test sees whether it was stopped.
const spinner = `<script>
window.slices = 0;
const long = location.search === '?loop' || (location.href.startsWith('data:') && document.title === 'loop');
const who = location.href.startsWith('data:') ? 'data' : 'ads';
function slice() {
	setTimeout(slice, 0); // re-queued first: nothing but a stop of the renderer's script ends it
	const n = window.slices++;
	navigator.sendBeacon('https://ads.shop.test/beat?' + who + '=' + n);
	const end = performance.now() + (long ? 2000 : 40);
	while (performance.now() < end) {}
	navigator.sendBeacon('https://ads.shop.test/beat?' + who + '-end=' + n);
}
slice();
</script>`

// reporter reports what navigator.poppy.controller reads every 100 ms,
// with the time of the read, to its server.
const reporter = `<script>
setInterval(() => navigator.sendBeacon("/report?at=" + Date.now() + "&controller=" + (navigator.poppy ? navigator.poppy.controller : "absent")), 100);
</script>`

// read is one report of the Company page.
type read struct {
	at         time.Time
	controller string
}

// reports collects the Company page's reports.
type reports struct {
	mu    sync.Mutex
	reads []read
}

func (rs *reports) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ms, _ := strconv.ParseInt(r.URL.Query().Get("at"), 10, 64)
	rs.mu.Lock()
	rs.reads = append(rs.reads, read{time.UnixMilli(ms), r.URL.Query().Get("controller")})
	rs.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// wait waits for the latest report to say controller.
func (rs *reports) wait(tb testing.TB, ctx context.Context, controller string) {
	tb.Helper()
	for {
		rs.mu.Lock()
		n := len(rs.reads)
		last := read{}
		if n > 0 {
			last = rs.reads[n-1]
		}
		rs.mu.Unlock()
		if last.controller == controller {
			return
		}
		select {
		case <-ctx.Done():
			tb.Fatalf("waiting for the page to report reading %q (last: %q): %v", controller, last.controller, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// after waits for a report read after t and returns every report so far.
func (rs *reports) after(tb testing.TB, ctx context.Context, t time.Time) []read {
	tb.Helper()
	for {
		rs.mu.Lock()
		reads := slices.Clone(rs.reads)
		rs.mu.Unlock()
		if len(reads) > 0 && reads[len(reads)-1].at.After(t) {
			return reads
		}
		select {
		case <-ctx.Done():
			tb.Fatalf("waiting for the Company page to report a read after %s: %v", t.Format(time.StampMilli), ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// switchBound is the promise of injector.SwitchBound with room for a
// loaded machine's scheduling.
const switchBound = injector.SwitchBound + time.Second

// beats records the spinners' slices as they report them, by spinner
// ("data", "ads"), the start and the end of each: the test learns they run
// without asking their busy renderer, and whether a slice was cut short.
type beats struct {
	mu      sync.Mutex
	started map[string]int          // slices started, by spinner
	ended   map[string]map[int]bool // the slices that ran to their end, by spinner
}

func newBeats() *beats {
	return &beats{started: map[string]int{}, ended: map[string]map[int]bool{}}
}

func (b *beats) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k, v := range r.URL.Query() {
		n, _ := strconv.Atoi(v[0])
		if who, ok := strings.CutSuffix(k, "-end"); ok {
			if b.ended[who] == nil {
				b.ended[who] = map[int]bool{}
			}
			b.ended[who][n] = true
		} else {
			b.started[k] = max(b.started[k], n+1)
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (b *beats) count(who string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.started[who]
}

// cut lists the slices of spinner who that started and never ended, but
// for the last two (one may run, and its beacon may be on its way).
func (b *beats) cut(who string) []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	var cut []int
	for n := range b.started[who] - 2 {
		if !b.ended[who][n] {
			cut = append(cut, n)
		}
	}
	return cut
}

// wait waits until spinner who has started more than n slices.
func (b *beats) wait(t *testing.T, ctx context.Context, who string, n int) {
	t.Helper()
	for b.count(who) <= n {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for the %s spinner to start more than %d slices: %v", who, n, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestNoFrameStallsTheSwitch: a data: frame and a same-site third party
// (ads.shop.test under the Company's www.shop.test, one renderer) that
// keep the main thread busy, in setTimeout(0) slices or in long loops,
// neither delay a switch beyond its bound nor leave the Company page
// reading a holder that is not the truth; the third party's script is not
// stopped.
func TestNoFrameStallsTheSwitch(t *testing.T) {
	for _, mode := range []string{"slices", "loop"} {
		t.Run(mode, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			title := ""
			if mode == "loop" {
				title = "<title>loop</title>"
			}
			pages := map[string]string{
				"www.shop.test/": reporter +
					`<iframe src="data:text/html,` + title + spinner + `"></iframe>` +
					`<iframe src="https://ads.shop.test/ad?` + mode + `"></iframe>`,
				"ads.shop.test/ad": spinner,
			}
			spins := newBeats()
			mux := http.NewServeMux()
			mux.Handle("/", pagesHandler(pages))
			mux.Handle("ads.shop.test/beat", spins)
			company := &reports{}
			mux.Handle("www.shop.test/report", company)
			b, in := launch(t, ctx, "www.shop.test", serveTLS(t, mux))
			p, err := b.NewPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Navigate(ctx, "https://www.shop.test/"); err != nil {
				t.Fatal(err)
			}
			spins.wait(t, ctx, "data", 0)
			spins.wait(t, ctx, "ads", 0)

			// Each switch, then a read of the Company page's after it: what
			// it reads from a switch's end to the next switch's start must
			// be the value of that switch.
			type turn struct {
				c          spec.Controller
				from, till time.Time
			}
			var turns []turn
			for _, c := range []spec.Controller{spec.ControllerUser, spec.ControllerAgent, spec.ControllerUser, spec.ControllerAgent} {
				start := time.Now()
				if n := len(turns); n > 0 {
					turns[n-1].till = start
				}
				if err := in.Set(ctx, c); err != nil {
					t.Fatalf("switching to %s: %v", c, err)
				}
				if d := time.Since(start); d > switchBound {
					t.Errorf("switching to %s took %s, over the bound of %s", c, d, switchBound)
				}
				t.Logf("switched to %s in %s", c, time.Since(start))
				turns = append(turns, turn{c: c, from: time.Now()})
				company.after(t, ctx, turns[len(turns)-1].from)
			}
			last := turns[len(turns)-1].from
			turns[len(turns)-1].till = last.Add(time.Hour)
			for _, r := range company.after(t, ctx, last.Add(time.Second)) {
				for _, tu := range turns {
					if r.at.After(tu.from) && r.at.Before(tu.till) && r.controller != string(tu.c) {
						t.Errorf("%s after the switch to %s the Company page read %q", r.at.Sub(tu.from), tu.c, r.controller)
					}
				}
			}
			// The frames' scripts go on: held at most, never stopped.
			for _, who := range []string{"ads", "data"} {
				spins.wait(t, ctx, who, spins.count(who)+1)
				if cut := spins.cut(who); len(cut) > 0 {
					t.Errorf("the %s frame's script was stopped in slices %v", who, cut)
				}
			}
		})
	}
}
