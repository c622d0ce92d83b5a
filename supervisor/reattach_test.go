package supervisor_test

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestReattachAfterLaunchedBrowserDies: the Chromium a Server launched is
// killed; the open Session answers browser_gone with its offer kept, and
// a new Session gets a new Chromium and works.
func TestReattachAfterLaunchedBrowserDies(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	site, _ := startSite(t)
	marker := "--poppy-reattach-test=" + randomHex(t)
	srv := supervisor.NewServer(&supervisor.Options{
		Company:           testsite.CompanyDomain,
		ContextPerSession: true,
		Join:              supervisor.JoinOptions{Skip: true},
		Browser:           supervisor.BrowserOptions{Args: append(site.BrowserArgs(), marker)},
		Live:              supervisor.LiveOptions{Off: true},
	})
	t.Cleanup(func() { _ = srv.Close() }) // after the Sessions' cleanups
	go func() { _ = srv.Start(ctx) }()
	old := openAndNavigate(t, ctx, srv, "old")
	offer := old.Control().RequestUser("pay", nil)

	for _, pid := range chromiumProcesses(t, marker) {
		n, _ := strconv.Atoi(pid)
		_ = syscall.Kill(n, syscall.SIGKILL)
	}
	waitFor(t, 20*time.Second, "the Server to count the browser's loss", func() bool { return srv.BrowserStats().Losses == 1 })
	res := old.Gate().Do(ctx, gate.Navigate{URL: testsite.BookingURL()})
	if res.Outcome != spec.OutcomeFailed || res.Reason != spec.ReasonBrowserGone {
		t.Errorf("the old session after the kill: %s %s (%s), want failed browser_gone", res.Outcome, res.Reason, res.Message)
	}
	if st := old.Control().Status(); st.Offer == nil || st.Offer.ID != offer.ID {
		t.Errorf("the old session's offer after the kill: %+v, want %s kept", st.Offer, offer.ID)
	}

	openAndNavigate(t, ctx, srv, "new")
	if st := srv.BrowserStats(); !st.Attached || st.Attaches != 2 || st.Reattaches != 1 || st.Losses != 1 {
		t.Errorf("stats after the reattach: %+v", st)
	}
}

// TestReattachAfterPoolBrowserRestarts: the browser at --cdp-url goes
// away; a new Session while it is down fails naming the browser, and
// once a browser listens at the same address again a new Session
// attaches to it.
func TestReattachAfterPoolBrowserRestarts(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	site, _ := startSite(t)
	port := freePort(t)
	chromium := browsertest.StartChromium(t, ctx, &browsertest.ChromiumOptions{Port: port, Args: site.BrowserArgs()})
	// The http form: a restarted browser has a new websocket URL.
	srv := supervisor.NewServer(&supervisor.Options{
		Company:           testsite.CompanyDomain,
		ContextPerSession: true,
		Join:              supervisor.JoinOptions{Skip: true},
		Browser:           supervisor.BrowserOptions{CDPURL: fmt.Sprintf("http://127.0.0.1:%d", port)},
		Live:              supervisor.LiveOptions{Off: true},
	})
	t.Cleanup(func() { _ = srv.Close() }) // after the Sessions' cleanups
	go func() { _ = srv.Start(ctx) }()
	old := openAndNavigate(t, ctx, srv, "old")

	chromium.Kill()
	waitFor(t, 20*time.Second, "the Server to count the browser's loss", func() bool { return srv.BrowserStats().Losses == 1 })
	if res := old.Gate().Do(ctx, gate.Navigate{URL: testsite.BookingURL()}); res.Reason != spec.ReasonBrowserGone {
		t.Errorf("the old session with the browser down: %s %s (%s), want browser_gone", res.Outcome, res.Reason, res.Message)
	}
	downCtx, downCancel := context.WithTimeout(ctx, 15*time.Second)
	if _, err := srv.NewSession(downCtx, "while-down"); err == nil {
		t.Error("a session opened with no browser at the address")
	}
	downCancel()
	if st := srv.BrowserStats(); st.Attached || st.Failures == 0 {
		t.Errorf("stats with the browser down: %+v, want not attached and a failed attempt", st)
	}

	browsertest.StartChromium(t, ctx, &browsertest.ChromiumOptions{Port: port, Args: site.BrowserArgs()})
	openAndNavigate(t, ctx, srv, "new")
	if st := srv.BrowserStats(); !st.Attached || st.Reattaches != 1 {
		t.Errorf("stats after the reattach: %+v", st)
	}
	if res := old.Gate().Do(ctx, gate.Navigate{URL: testsite.BookingURL()}); res.Reason != spec.ReasonBrowserGone {
		t.Errorf("the old session after the reattach: %s %s, want browser_gone still", res.Outcome, res.Reason)
	}
}

// openAndNavigate opens Session id on srv and has it navigate.
func openAndNavigate(t *testing.T, ctx context.Context, srv *supervisor.Server, id string) *supervisor.Session {
	t.Helper()
	ss, err := srv.NewSession(ctx, id)
	if err != nil {
		t.Fatalf("session %s: %v", id, err)
	}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = ss.Close(cctx, "closed")
	})
	if res := ss.Gate().Do(ctx, gate.Navigate{URL: testsite.BookingURL()}); res.Outcome != spec.OutcomeDone {
		t.Fatalf("session %s navigate: %s %s (%s)", id, res.Outcome, res.Reason, res.Message)
	}
	return ss
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
