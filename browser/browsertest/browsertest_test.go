package browsertest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
)

var (
	chromium *browsertest.Browser
	site     *httptest.Server
)

func TestMain(m *testing.M) {
	site = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/throws":
			fmt.Fprint(w, `<title>throws</title><script>console.log("before", 42); throw new Error("boom from the page")</script>`)
		default:
			fmt.Fprint(w, `<title>quiet</title><p>quiet</p>`)
		}
	}))
	defer site.Close()
	chromium = browsertest.New(nil)
	os.Exit(browsertest.Run(m, chromium))
}

// recorder is a testing.TB whose errors and cleanups the test sees: it
// stands for the test that uses browsertest.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	errs     []string
	cleanups []func()
	dir      string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.errs) > 0
}
func (r *recorder) Cleanup(f func())    { r.cleanups = append(r.cleanups, f) }
func (r *recorder) ArtifactDir() string { return r.dir }
func (r *recorder) Logf(string, ...any) {}

func (r *recorder) cleanup() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// open opens path of the site in a page of the shared browser owned by r,
// and waits until the page has reported n log lines.
func open(t *testing.T, r *recorder, path string, n int) *browser.Page {
	t.Helper()
	p := chromium.NewPage(r)
	seen := make(chan browsertest.LogLine, 16)
	stop := browsertest.WatchLog(p, func(l browsertest.LogLine) {
		select {
		case seen <- l:
		default:
		}
	})
	defer stop()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := p.Navigate(ctx, site.URL+path); err != nil {
		t.Fatalf("navigating to %s: %v", path, err)
	}
	for range n {
		select {
		case <-seen:
		case <-ctx.Done():
			t.Fatalf("waited 30 s for %d log lines of %s", n, path)
		}
	}
	return p
}

// A page exception fails the test that owns the page, and the failure
// leaves a screenshot and the console lines in its artifact directory;
// the page is closed.
func TestPageExceptionFailsTestAndSavesArtifacts(t *testing.T) {
	r := &recorder{TB: t, dir: t.TempDir()}
	p := open(t, r, "/throws", 2) // the console line and the exception
	r.cleanup()
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "page exception") || !strings.Contains(r.errs[0], "boom from the page") {
		t.Errorf("errors of the test = %q, want one page exception naming the error", r.errs)
	}
	pages, _ := filepath.Glob(filepath.Join(r.dir, "page*"))
	if len(pages) != 1 {
		t.Fatalf("artifact folders %q, want one for the page", pages)
	}
	console, err := os.ReadFile(filepath.Join(pages[0], "console.txt"))
	if err != nil || !strings.Contains(string(console), "log: before 42") || !strings.Contains(string(console), "boom from the page") {
		t.Errorf("console.txt = %q, %v; want the console line and the exception", console, err)
	}
	if shot, err := os.ReadFile(filepath.Join(pages[0], "screenshot.png")); err != nil || !strings.HasPrefix(string(shot), "\x89PNG") {
		t.Errorf("screenshot.png: %d bytes, %v; want a PNG", len(shot), err)
	}
	select {
	case <-p.Done():
	case <-time.After(30 * time.Second):
		t.Error("waited 30 s for the page to close at cleanup")
	}
}

// A quiet page passes and leaves no artifacts.
func TestQuietPagePasses(t *testing.T) {
	r := &recorder{TB: t, dir: t.TempDir()}
	open(t, r, "/quiet", 0)
	r.cleanup()
	if len(r.errs) != 0 {
		t.Errorf("errors of a quiet page's test = %q, want none", r.errs)
	}
	if entries, _ := os.ReadDir(r.dir); len(entries) != 0 {
		t.Errorf("artifacts of a passing test: %v, want none", entries)
	}
}

// The shared browser's temporary profile is gone after Close.
func TestCloseRemovesProfile(t *testing.T) {
	s := browsertest.New(nil)
	b := s.Browser(t)
	dir := browsertest.ProfileDir(b)
	if dir == "" {
		t.Fatal("a launched browser reports no profile directory")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("profile %s while running: %v", dir, err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("profile %s after Close: %v, want it removed", dir, err)
	}
}
