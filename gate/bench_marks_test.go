package gate

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// The benchmarks of issue 3 run one Chromium with a DevTools port, driven
// both by the gate (package browser) and, for comparison only, by plain
// chromedp in a tab of its own, on the same pages of testsite.

// benchBrowser is one Chromium, the gate over a page of it, and a chromedp
// tab of the same browser.
type benchBrowser struct {
	gate    *Gate
	page    *browser.Page
	cdp     context.Context // chromedp tab
	pageURL string
}

func startBench(b *testing.B, path string) *benchBrowser {
	b.Helper()
	exe, err := browser.FindChromium()
	if err != nil {
		b.Skip(err)
	}
	site, err := testsite.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: site.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l)
	b.Cleanup(func() { srv.Close() })

	dir, err := os.MkdirTemp("", "poppy-bench-")
	if err != nil {
		b.Fatal(err)
	}
	args := []string{"--headless", "--disable-gpu", "--hide-scrollbars", "--remote-debugging-port=0",
		"--user-data-dir=" + dir, "--no-first-run", "--site-per-process", "--window-size=1280,800",
		"--host-resolver-rules=MAP *.test " + l.Addr().String(), "about:blank"}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	cmd := exec.Command(exe, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		// The whole process group: renderers too, before the profile goes.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		os.RemoveAll(dir)
	})
	ws := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), "DevTools listening on "); ok {
				ws <- u
				break
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	var wsURL string
	select {
	case wsURL = <-ws:
	case <-time.After(30 * time.Second):
		b.Fatal("chromium did not print its DevTools URL")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	bb, err := browser.Launch(ctx, &browser.Options{CDPURL: wsURL})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { bb.Close() })
	if err := bb.SetScript(ctx, "marks", marks.Script()); err != nil {
		b.Fatal(err)
	}
	p, err := bb.NewPage(ctx)
	if err != nil {
		b.Fatal(err)
	}
	g := New(&Options{Page: func() *browser.Page { return p }, Control: control.New(nil),
		CompanyHost: func(h string) bool { return h == testsite.CompanyDomain }})
	url := "http://" + testsite.CompanyDomain + "/fixtures/marks/" + path
	if r := g.Do(ctx, Navigate{URL: url}); r.Outcome != spec.OutcomeDone {
		b.Fatalf("navigate: %+v", r)
	}

	actx, acancel := remote.NewAllocator(context.Background(), wsURL)
	b.Cleanup(acancel)
	cctx, ccancel := chromedp.NewContext(actx)
	b.Cleanup(ccancel)
	if err := chromedp.Do(cctx, chromedp.Navigate(url)); err != nil {
		b.Fatal(err)
	}
	return &benchBrowser{gate: g, page: p, cdp: cctx, pageURL: url}
}

// snapshot takes one snapshot and finds a button's ref by name.
func (bb *benchBrowser) ref(b *testing.B, name string) string {
	b.Helper()
	r := bb.gate.Do(b.Context(), Snapshot{})
	for _, e := range r.Elements {
		if e.Name == name {
			return e.Ref
		}
	}
	b.Fatalf("no element %q in the snapshot: %s/%s %s", name, r.Outcome, r.Reason, r.Message)
	return ""
}

var benchPages = []struct{ name, path, allowed, covered, selector string }{
	{"elements5000", "elements-5000.html", "Order item 351", "Order item 350", "#b351"},
	{"buttons2400", "buttons-2400.html", "Button 1225", "Button 1200", "#b1225"},
}

// snapshotPages are benchPages and the same pages in bare markup.
var snapshotPages = []struct{ name, path string }{
	{"elements5000", "elements-5000.html"},
	{"buttons2400", "buttons-2400.html"},
	{"elements5000-plain", "elements-5000.html?markup=plain"},
	{"buttons2400-plain", "buttons-2400.html?markup=plain"},
}

// BenchmarkMarksCheck is the gate's decision for one click, alone: one
// round trip to the page (marks.Check), on a covered button.
func BenchmarkMarksCheck(b *testing.B) {
	for _, pg := range benchPages {
		b.Run(pg.name, func(b *testing.B) {
			bb := startBench(b, pg.path)
			id, err := marks.IDOf(b.Context(), bb.page.MainFrame(), strings.Replace(pg.selector, "1225", "1200", 1))
			if err != nil || id == 0 {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := marks.Check(b.Context(), bb.page.MainFrame(), marks.Action{Kind: "click", ID: id}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGateDenied is one refused click through Gate.Do: the decision
// with the gate's bookkeeping (epoch, page state, audit), no input.
func BenchmarkGateDenied(b *testing.B) {
	for _, pg := range benchPages {
		b.Run(pg.name, func(b *testing.B) {
			bb := startBench(b, pg.path)
			ref := bb.ref(b, pg.covered)
			for b.Loop() {
				if r := bb.gate.Do(b.Context(), Click{Ref: ref}); r.Reason != spec.ReasonUserStep {
					b.Fatalf("click: %+v", r)
				}
			}
		})
	}
}

// BenchmarkSnapshot is one snapshot through Gate.Do; it reports the size of
// the snapshot's text and of the page's HTML.
func BenchmarkSnapshot(b *testing.B) {
	for _, pg := range snapshotPages {
		b.Run(pg.name, func(b *testing.B) {
			bb := startBench(b, pg.path)
			var text, elems int
			for b.Loop() {
				r := bb.gate.Do(b.Context(), Snapshot{})
				if r.Outcome != spec.OutcomeDone {
					b.Fatalf("snapshot: %+v", r)
				}
				text, elems = len(r.Text), len(r.Elements)
			}
			html, err := chromedp.Run(bb.cdp, chromedp.OuterHTML(chromedp.CSS("html")))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(elems), "refs")
			b.ReportMetric(float64(text), "text-bytes")
			b.ReportMetric(float64(len(html)), "html-bytes")
			b.ReportMetric(float64(len(html))/float64(text), "html/text")
		})
	}
}

// BenchmarkClick compares, in one run on the same page of the same
// browser, an allowed click through the gate with a plain chromedp click
// (chromedp.Click by CSS selector), alternating them; it reports both and
// their ratio.
func BenchmarkClick(b *testing.B) {
	for _, pg := range benchPages {
		b.Run(pg.name, func(b *testing.B) {
			bb := startBench(b, pg.path)
			ref := bb.ref(b, pg.allowed)
			var gated, plain time.Duration
			n := 0
			for b.Loop() {
				t0 := time.Now()
				if r := bb.gate.Do(b.Context(), Click{Ref: ref}); r.Outcome != spec.OutcomeDone {
					b.Fatalf("gated click: %+v", r)
				}
				t1 := time.Now()
				if _, err := chromedp.Run(bb.cdp, chromedp.Click(chromedp.CSS(pg.selector))); err != nil {
					b.Fatalf("chromedp click: %v", err)
				}
				gated += t1.Sub(t0)
				plain += time.Since(t1)
				n++
			}
			b.ReportMetric(float64(gated.Microseconds())/float64(n)/1000, "gated-ms")
			b.ReportMetric(float64(plain.Microseconds())/float64(n)/1000, "chromedp-ms")
			b.ReportMetric(float64(gated)/float64(plain), "gated/chromedp")
		})
	}
}
