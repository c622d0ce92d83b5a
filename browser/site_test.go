package browser_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
)

// site serves pages by host and path over plain HTTP on loopback (every
// *.test host maps to it) and records the Poppy-Extensions header of each
// request.
type site struct {
	mu      sync.Mutex
	pages   map[string]http.HandlerFunc // "host/path"
	headers map[string][]string
	args    []string
	stop    chan struct{} // closed at cleanup: ends handlers that never answer
}

func newSite(t *testing.T) *site {
	s := &site{pages: map[string]http.HandlerFunc{}, headers: map[string][]string{}, stop: make(chan struct{})}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: s}
	go srv.Serve(l)
	t.Cleanup(func() {
		close(s.stop)
		srv.Close()
	})
	s.args = []string{"--host-resolver-rules=MAP *.test " + l.Addr().String()}
	return s
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Host + r.URL.Path
	s.mu.Lock()
	s.headers[key] = append(s.headers[key], r.Header.Get("Poppy-Extensions"))
	h := s.pages[key]
	s.mu.Unlock()
	if h == nil {
		http.NotFound(w, r)
		return
	}
	h(w, r)
}

// html serves body as an HTML page at host/path.
func (s *site) html(hostPath, body string) {
	s.handle(hostPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, body)
	})
}

func (s *site) handle(hostPath string, h http.HandlerFunc) {
	s.mu.Lock()
	s.pages[hostPath] = h
	s.mu.Unlock()
}

func (s *site) header(hostPath string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.headers[hostPath]...)
}

const companyHeader = `"browser-control";v="1"`

// companyScript stands for navigator.poppy: a main-world script that the
// browser must run in every Company document before the page's own code.
const companyScript = `if (location.hostname === "company.test") { Object.defineProperty(navigator, "poppyTest", {value: "agent"}) }`

func launchSite(t *testing.T, ctx context.Context, s *site, opts *browser.Options) *browser.Browser {
	t.Helper()
	if opts == nil {
		opts = &browser.Options{}
	}
	opts.Args = append(opts.Args, s.args...)
	if opts.DialogLimit.Count == 0 {
		opts.DialogLimit = browser.DialogLimit{Count: 5, Window: 5 * time.Second} // supervisor's
	}
	opts.CompanyHost = func(host string) bool { return host == "company.test" }
	opts.CompanyHeaders = map[string]string{"Poppy-Extensions": companyHeader}
	b, err := browser.Launch(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("closing the browser: %v", err)
		}
	})
	if err := b.SetScript(ctx, "company", browser.Script{Source: companyScript}); err != nil {
		t.Fatal(err)
	}
	return b
}

// poll calls cond until it returns true, failing the test with what when ctx
// ends first.
func poll(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// evalIn runs a function in the page's main world of f and returns its
// string result.
func evalIn(ctx context.Context, f browser.Frame, fn string) (string, error) {
	var s string
	err := f.Call(ctx, "", fn, &s)
	return s, err
}

// within fails the test when d is longer than max.
func within(t *testing.T, what string, start time.Time, max time.Duration) {
	t.Helper()
	if d := time.Since(start); d > max {
		t.Errorf("%s took %s, want at most %s", what, d.Round(time.Millisecond), max)
	}
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: error %v, want %v", what, err, want)
	}
}

func hostOfURL(u string) string {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "https://")
	if i := strings.IndexAny(u, ":/"); i >= 0 {
		return u[:i]
	}
	return u
}

// openPage opens a page in a fresh browser context of b.
func openPage(t *testing.T, ctx context.Context, b *browser.Browser) *browser.Page {
	t.Helper()
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
