package supervisor_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// hangingSite is a hostile page: its server takes every request and never
// answers it, until the test releases it (or the browser gives up).
type hangingSite struct {
	url     string
	release chan struct{}

	mu    sync.Mutex
	asked map[string]chan struct{} // by path, closed once it is asked for
}

func startHangingSite(t *testing.T) *hangingSite {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &hangingSite{url: "http://" + ln.Addr().String(), asked: map[string]chan struct{}{}, release: make(chan struct{})}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked := h.awaitPath(r.URL.Path)
		h.mu.Lock()
		select {
		case <-asked:
		default:
			close(asked)
		}
		h.mu.Unlock()
		select {
		case <-r.Context().Done():
		case <-h.release:
		}
	})}
	srv.SetKeepAlivesEnabled(false) // a released request ends its connection
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		h.free()
		_ = srv.Close()
	})
	return h
}

// free lets every request still hanging end.
func (h *hangingSite) free() {
	select {
	case <-h.release:
	default:
		close(h.release)
	}
}

// syncBuffer is a log's buffer, safe for the Session's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// stuckWork is what one Session's test work did: started when it is
// stuck on the hanging page (or deaf), returned when it has returned.
type stuckWork struct{ started, returned chan struct{} }

// TestSessionCloseEndsItsWork: what works beside a Session ends with it.
// Work stuck on a page that never answers ends when Close ends it, Close
// returns within its bound, and no goroutine the Session started outlives
// it; a part of the work that fails ends the rest and Close reports it;
// work that ignores its ctx altogether cannot hold Close past its bound.
func TestSessionCloseEndsItsWork(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	site, _ := startSite(t)
	hang := startHangingSite(t)
	logs := &syncBuffer{}
	deafRelease := make(chan struct{})
	defer close(deafRelease)
	var (
		mu   sync.Mutex
		work = map[string]*stuckWork{}
	)
	opts := &supervisor.Options{
		Company:           testsite.CompanyDomain,
		ContextPerSession: true,
		Join:              supervisor.JoinOptions{Skip: true},
		Browser:           supervisor.BrowserOptions{Args: site.BrowserArgs()},
		Logger:            slog.New(slog.NewTextHandler(logs, nil)),
	}
	supervisor.WithSessionWork(opts, func(ss *supervisor.Session) func(context.Context) error {
		w := &stuckWork{started: make(chan struct{}), returned: make(chan struct{})}
		mu.Lock()
		work[ss.ID()] = w
		mu.Unlock()
		if ss.ID() == "deaf" {
			return func(context.Context) error { // it never looks at its ctx
				defer close(w.returned)
				close(w.started)
				<-deafRelease
				return nil
			}
		}
		return func(ctx context.Context) error {
			defer close(w.returned)
			close(w.started)
			_, err := ss.Page().Navigate(ctx, hang.url+"/"+ss.ID())
			if ctx.Err() != nil {
				return nil // ended by the Session
			}
			return fmt.Errorf("the hanging page answered: %v", err)
		}
	})
	supervisor.WithSessionWork(opts, func(ss *supervisor.Session) func(context.Context) error {
		if ss.ID() != "failing" {
			return func(context.Context) error { return nil }
		}
		return func(ctx context.Context) error {
			select { // fail once the other work is stuck on the page
			case <-hang.awaitPath("/failing"):
			case <-ctx.Done():
				return nil
			}
			return errors.New("the test's worker failed on purpose")
		}
	})
	srv := supervisor.NewServer(opts)
	defer srv.Close()
	go func() { _ = srv.Start(ctx) }()
	if err := srv.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	workOf := func(id string) *stuckWork {
		mu.Lock()
		defer mu.Unlock()
		return work[id]
	}

	t.Run("stuck on a page", func(t *testing.T) {
		before := runtime.NumGoroutine()
		ss, err := srv.NewSession(ctx, "stuck")
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-hang.awaitPath("/stuck"):
		case <-ctx.Done():
			t.Fatal("the Session's work never reached the hanging page")
		}
		w := workOf("stuck")
		select {
		case <-w.returned:
			t.Fatal("the work returned before Close: it was not stuck")
		default:
		}
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := ss.Close(cctx, "closed"); err != nil {
			t.Errorf("close: %v", err)
		}
		select {
		case <-w.returned:
		default:
			t.Error("Close returned while the Session's work was still running")
		}
		hang.free() // the test's own server lets go of its connection
		waitFor(t, 30*time.Second, fmt.Sprintf("the goroutines to return to %d after Close", before), func() bool {
			return runtime.NumGoroutine() <= before
		})
	})

	t.Run("a part fails", func(t *testing.T) {
		ss, err := srv.NewSession(ctx, "failing")
		if err != nil {
			t.Fatal(err)
		}
		w := workOf("failing")
		select { // the failure ended the work stuck on the page, without Close
		case <-w.returned:
		case <-ctx.Done():
			t.Fatal("a part of the Session's work failed, and the rest went on")
		}
		waitFor(t, 30*time.Second, "the failure in the log", func() bool {
			return strings.Contains(logs.String(), "the test's worker failed on purpose")
		})
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		err = ss.Close(cctx, "closed")
		if err == nil || !strings.Contains(err.Error(), "the test's worker failed on purpose") {
			t.Errorf("close: %v, want the failed part's error", err)
		}
	})

	t.Run("work deaf to its ctx", func(t *testing.T) {
		ss, err := srv.NewSession(ctx, "deaf")
		if err != nil {
			t.Fatal(err)
		}
		<-workOf("deaf").started
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		closed := make(chan error, 1)
		go func() { closed <- ss.Close(cctx, "closed") }()
		select {
		case err := <-closed:
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "waiting for the session's work") {
				t.Errorf("close: %v, want it to say it stopped waiting for the session's work", err)
			}
		case <-ctx.Done():
			t.Fatal("Close did not return at the end of its ctx")
		}
	})
}

// awaitPath is closed once h has been asked for path.
func (h *hangingSite) awaitPath(path string) chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	c, ok := h.asked[path]
	if !ok {
		c = make(chan struct{})
		h.asked[path] = c
	}
	return c
}
