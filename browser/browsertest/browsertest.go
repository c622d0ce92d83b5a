package browsertest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
)

// Bounds of the waits of this package, generous for a loaded machine.
const (
	StartTimeout = 90 * time.Second // launching Chromium and running Setup
	PageTimeout  = 30 * time.Second // opening, closing or photographing a page
)

// Options configure the shared browser. Browser's Args, CompanyHost and
// CompanyHeaders go to [browser.Launch]; the profile is always a fresh
// temporary one.
type Options struct {
	// Browser configures Launch; nil means a headless Chromium found on
	// PATH. Its UserDataDir must be empty (the profile is temporary and
	// checked on Close).
	Browser *browser.Options
	// Args are more command-line flags, added to Browser.Args (for
	// example --host-resolver-rules mapping *.test to a test server).
	Args []string
	// Setup runs once after the launch, before any test gets the browser
	// (for example installing a script in every frame). An error fails
	// every test that asks for the browser.
	Setup func(ctx context.Context, b *browser.Browser) error
}

// Browser is one Chromium shared by a test binary's tests, launched on
// first use. Its zero value is not usable: make it with [New].
type Browser struct {
	opts Options

	once    sync.Once
	b       *browser.Browser
	profile string // the temporary profile to check on Close
	err     error  // why the launch failed, for every test that asks
	missing bool   // no Chromium: tests skip under -short
}

// New returns a shared browser that starts nothing until a test asks for it.
func New(opts *Options) *Browser {
	s := &Browser{}
	if opts != nil {
		s.opts = *opts
	}
	return s
}

// Browser returns the shared Chromium, launching it on first use. Without
// Chromium it fails t naming the install command (skips under -short).
func (s *Browser) Browser(t testing.TB) *browser.Browser {
	t.Helper()
	s.once.Do(s.launch)
	if s.missing && testing.Short() {
		t.Skipf("no Chromium (-short): %v", s.err)
	}
	if s.err != nil {
		t.Fatalf("shared browser: %v", s.err)
	}
	return s.b
}

func (s *Browser) launch() {
	if _, err := browser.FindChromium(); err != nil && (s.opts.Browser == nil || s.opts.Browser.ExecPath == "") {
		s.missing = true
		s.err = fmt.Errorf("%w (install it: sudo apt-get install -y chromium)", err)
		return
	}
	var o browser.Options
	if s.opts.Browser != nil {
		o = *s.opts.Browser
	}
	if o.UserDataDir != "" {
		s.err = errors.New("starting chromium: Options.Browser.UserDataDir must be empty")
		return
	}
	o.Args = append(append([]string(nil), o.Args...), s.opts.Args...)
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	b, err := browser.Launch(ctx, &o)
	if err != nil {
		s.err = fmt.Errorf("launching chromium (waited up to %v): %w", StartTimeout, err)
		return
	}
	s.b, s.profile = b, ProfileDir(b)
	if s.opts.Setup != nil {
		if err := s.opts.Setup(ctx, b); err != nil {
			s.err = fmt.Errorf("setting up chromium (waited up to %v): %w", StartTimeout, err)
		}
	}
}

// Close ends the shared browser, if it started, and reports an error when
// its temporary profile is still on disk afterwards.
func (s *Browser) Close() error {
	s.once.Do(func() { s.err = errors.New("the shared browser is closed") })
	if s.b == nil {
		return nil
	}
	err := s.b.Close()
	s.b = nil
	if s.profile != "" {
		if _, statErr := os.Stat(s.profile); !errors.Is(statErr, os.ErrNotExist) {
			err = errors.Join(err, fmt.Errorf("closing chromium: its temporary profile %s is left behind", s.profile))
		}
	}
	if err != nil {
		return fmt.Errorf("closing the shared browser: %w", err)
	}
	return nil
}

// Run runs the tests, then closes s; it returns the exit code for os.Exit.
// A failing Close (a leaked profile) fails the run.
func Run(m *testing.M, s *Browser) int {
	code := m.Run()
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// PageOptions change what [Browser.NewPageWith] checks.
type PageOptions struct {
	// AllowExceptions keeps the test passing when the page throws an
	// uncaught exception (a fixture that throws on purpose). The lines are
	// still saved as artifacts on failure.
	AllowExceptions bool
	// KeepOpen leaves the page open at cleanup (its browser context too),
	// for a test that hands it to something that outlives the test.
	KeepOpen bool
}

// NewPage opens a page in a fresh browser context for t. At t's cleanup it
// fails t if the page threw an uncaught exception, saves a screenshot and
// the console lines to t.ArtifactDir() if t failed, and closes the page.
func (s *Browser) NewPage(t testing.TB) *browser.Page {
	t.Helper()
	return s.NewPageWith(t, PageOptions{})
}

// NewPageWith is [Browser.NewPage] with options.
func (s *Browser) NewPageWith(t testing.TB, opts PageOptions) *browser.Page {
	t.Helper()
	b := s.Browser(t)
	ctx, cancel := context.WithTimeout(t.Context(), PageTimeout)
	defer cancel()
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatalf("opening a page (waited up to %v): %v", PageTimeout, err)
	}
	var mu sync.Mutex
	var lines []LogLine
	stop := WatchLog(p, func(l LogLine) {
		mu.Lock()
		lines = append(lines, l)
		mu.Unlock()
	})
	t.Cleanup(func() {
		stop()
		mu.Lock()
		got := append([]LogLine(nil), lines...)
		mu.Unlock()
		if !opts.AllowExceptions {
			for _, l := range got {
				if l.Exception {
					t.Errorf("page exception: %s", l)
				}
			}
		}
		if t.Failed() {
			saveArtifacts(t, p, got)
		}
		if opts.KeepOpen {
			return
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), PageTimeout)
		defer cancel()
		if err := p.Close(ctx); err != nil {
			t.Errorf("closing the page (waited up to %v): %v", PageTimeout, err)
		}
	})
	return p
}

// artifactSeq numbers the pages whose artifacts are saved, so that a test
// with several pages keeps each one's files.
var artifactSeq atomic.Int64

// saveArtifacts writes the page's screenshot and console lines to the
// test's artifact directory (kept with go test -artifacts, as make test
// runs it) and logs where they are.
func saveArtifacts(t testing.TB, p *browser.Page, lines []LogLine) {
	t.Helper()
	dir := filepath.Join(t.ArtifactDir(), fmt.Sprintf("page%d", artifactSeq.Add(1)))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Logf("saving artifacts: %v", err)
		return
	}
	var console strings.Builder
	for _, l := range lines {
		console.WriteString(l.String())
		console.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "console.txt"), []byte(console.String()), 0o644); err != nil {
		t.Logf("saving the console: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), PageTimeout)
	defer cancel()
	shot, err := p.Screenshot(ctx)
	if err != nil {
		t.Logf("no screenshot of %s (waited up to %v): %v", p.URL(), PageTimeout, err)
	} else if err := os.WriteFile(filepath.Join(dir, "screenshot.png"), shot.PNG, 0o644); err != nil {
		t.Logf("saving the screenshot: %v", err)
	}
	t.Logf("artifacts of %s in %s", p.URL(), dir)
}

// SilentListener returns the address of a loopback port that accepts
// connections and never answers, closed at t's cleanup: a DevTools
// endpoint that hangs, for tests of the attach bound.
func SilentListener(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		var held []net.Conn // held open, never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	return l.Addr().String()
}
