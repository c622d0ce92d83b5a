package marks_test

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/marks"
)

// chromium is the package's shared browser, with the scanner installed in
// every frame; base is the fixture server, mapped to every *.test host.
var (
	chromium *browsertest.Browser
	base     = "http://marks.test"
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "listening:", err)
		return 1
	}
	srv := &http.Server{Handler: fixtures(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l)
	defer srv.Close()
	chromium = browsertest.New(&browsertest.Options{
		Args: []string{"--host-resolver-rules=MAP *.test " + l.Addr().String()},
		Setup: func(ctx context.Context, b *browser.Browser) error {
			if err := b.SetScript(ctx, "marks", marks.Script()); err != nil {
				return err
			}
			// The watcher carries Locate's script.
			return b.SetScript(ctx, "marks-watch", marks.WatchScript())
		},
	})
	return browsertest.Run(m, chromium)
}

// extraFixtures add generated pages of other test files to fixtures.
var extraFixtures []func(*http.ServeMux)

// fixtures serves testdata/*.html and generated pages.
func fixtures() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("testdata")))
	mux.HandleFunc("/buttons.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, buttonsPage(2400))
	})
	mux.HandleFunc("/kinds.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, kindsPage())
	})
	for _, add := range extraFixtures {
		add(mux)
	}
	return mux
}

// buttonsPage is n buttons in forms of 24, every fifth form marked.
func buttonsPage(n int) string {
	var sb strings.Builder
	sb.WriteString("<!doctype html><title>Buttons</title><h1>Buttons</h1>\n")
	for i := 0; i < n; i++ {
		if i%24 == 0 {
			if i > 0 {
				sb.WriteString("</form>\n")
			}
			mark := ""
			if i/24%5 == 0 {
				mark = ` data-poppy-user-step="submission"`
			}
			fmt.Fprintf(&sb, "<form id=\"f%d\"%s><p>Group %d</p>\n", i/24, mark, i/24)
		}
		fmt.Fprintf(&sb, "<button type=\"button\" id=\"b%d\">Button %d</button>\n", i, i)
	}
	sb.WriteString("</form>\n")
	return sb.String()
}

// testPage is a fresh page (own browser context) showing path.
type testPage struct {
	p     *browser.Page
	frame browser.Frame
}

// newPage opens a page in a fresh browser context of the shared browser,
// closed at cleanup; a page exception fails the test.
func newPage(t testing.TB) *browser.Page {
	t.Helper()
	return chromium.NewPage(t)
}

// open shows path in p (a fresh page when p is nil): a new document.
func open(t testing.TB, path string, p ...*browser.Page) (*testPage, context.Context) {
	t.Helper()
	var page *browser.Page
	if len(p) > 0 {
		page = p[0]
	} else {
		page = newPage(t)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	if _, err := page.Navigate(ctx, base+path+"?"+url.QueryEscape(t.Name())); err != nil {
		t.Fatalf("Navigate %s: %v", path, err)
	}
	return &testPage{p: page, frame: page.MainFrame()}, ctx
}

func (tp *testPage) scan(ctx context.Context, t testing.TB) marks.Scan {
	t.Helper()
	s, err := marks.ScanFrame(ctx, tp.frame)
	if err != nil {
		t.Fatalf("ScanFrame: %v", err)
	}
	return s
}

// id finds a scanned element by role and name, or an element by CSS
// selector when sel starts with "css:".
func (tp *testPage) id(ctx context.Context, t testing.TB, s marks.Scan, sel string) int {
	t.Helper()
	if css, ok := strings.CutPrefix(sel, "css:"); ok {
		id, err := marks.IDOf(ctx, tp.frame, css)
		if err != nil || id == 0 {
			t.Fatalf("IDOf(%q) = %d, %v", css, id, err)
		}
		return id
	}
	role, name, _ := strings.Cut(sel, " ")
	for _, e := range s.Elements {
		if e.Role == role && (e.Name == name || e.Name == "" && e.Text == name) {
			return e.ID
		}
	}
	t.Fatalf("no element %q in scan", sel)
	return 0
}

// eval runs js in the page's own world (as the page's scripts would).
func (tp *testPage) eval(ctx context.Context, t testing.TB, js string) {
	t.Helper()
	if err := tp.frame.Call(ctx, "", "function() { "+js+" }", nil); err != nil {
		t.Fatalf("page script %q: %v", js, err)
	}
}
