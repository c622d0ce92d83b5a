package supervisor_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
)

func TestMain(m *testing.M) {
	flag.Parse()
	if _, err := browser.FindChromium(); err != nil {
		if testing.Short() {
			fmt.Println("skipping supervisor tests under -short:", err)
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "supervisor tests need Chromium (apt-get install chromium):", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// startSite serves the demo airline, trusting a fresh signing key, and
// returns the Personal Agent's signer for it.
func startSite(t *testing.T) (*testsite.Site, *session.KeySigner) {
	t.Helper()
	signer, pub, err := session.NewDemoSigner()
	if err != nil {
		t.Fatal(err)
	}
	site, err := testsite.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	site.TrustKey(pub)
	if err := site.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	return site, signer
}

// TestStartActClose joins the demo airline's Session, lets the agent do one
// gated navigation and a snapshot, and have a click refused on the marked
// step, and closes: every
// goroutine the runtime started ends and no Chromium process is left.
func TestStartActClose(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	site, signer := startSite(t)
	client := site.Client()
	// Chromium's processes carry this flag (it ignores it), so the test
	// finds exactly its own.
	marker := "--poppy-supervisor-test=" + randomHex(t)
	auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
	before := runtime.NumGoroutine()

	sv := supervisor.New(&supervisor.Options{
		Company: testsite.CompanyDomain,
		Join: supervisor.JoinOptions{
			Credentials: signer,
			HTTPClient:  client,
			ReturnTo:    testsite.BookingURL(),
		},
		Browser: supervisor.BrowserOptions{Args: append(site.BrowserArgs(), marker), GuardWindow: true},
		Audit:   supervisor.AuditOptions{File: auditPath},
	})
	if err := sv.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	if sv.LiveURL() == "" {
		t.Error("no live view URL after Start")
	}
	if n := len(chromiumProcesses(t, marker)); n == 0 {
		t.Fatal("no Chromium process carries the test's flag: the check below would prove nothing")
	}
	var observed []audit.Entry
	stop := sv.Audit().Observe(func(e audit.Entry) { observed = append(observed, e) })

	res := sv.Gate().Do(ctx, gate.Navigate{URL: testsite.BookingURL() + "/check-in"})
	if res.Outcome != spec.OutcomeDone || !strings.HasSuffix(sv.Page().URL(), "/check-in") {
		t.Fatalf("navigate: %s %s (%s), page at %s", res.Outcome, res.Reason, res.Message, sv.Page().URL())
	}
	snap := sv.Gate().Do(ctx, gate.Snapshot{})
	checkIn := ""
	for _, e := range snap.Elements {
		if e.Role == "button" && e.Name == "Check in" {
			checkIn = e.Ref
		}
	}
	if checkIn == "" {
		t.Fatalf("no Check in button in the snapshot:\n%s", snap.Text)
	}
	if res := sv.Gate().Do(ctx, gate.Click{Ref: checkIn}); res.Outcome != spec.OutcomeDenied || res.Reason != spec.ReasonUserStep {
		t.Errorf("click on the marked Check in: %s %s, want denied user_step", res.Outcome, res.Reason)
	}
	stop()
	var events []string
	for _, e := range observed {
		events = append(events, string(e.Event)+" "+e.Reason)
	}
	if want := []string{"navigate ", "action ", "denied user_step"}; strings.Join(events, "|") != strings.Join(want, "|") {
		t.Errorf("audit entries observed %q, want %q", events, want)
	}

	if err := sv.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if err := sv.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	raw, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"event":"join"`) || !strings.Contains(string(raw), `"reason":"user_step"`) {
		t.Errorf("audit log lacks the join or the refusal:\n%s", raw)
	}
	client.CloseIdleConnections() // discovery's keep-alive connections are the test's, not the runtime's
	waitFor(t, 20*time.Second, "no Chromium process with the test's flag", func() bool {
		return len(chromiumProcesses(t, marker)) == 0
	})
	waitFor(t, 20*time.Second, fmt.Sprintf("the goroutines to return to %d", before), func() bool {
		return runtime.NumGoroutine() <= before
	})
}

// TestStartFailsCleanly: a Start that fails (no credential source for the
// join) says why in one line and leaves no browser behind.
func TestStartFailsCleanly(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	site, _ := startSite(t)
	sv := supervisor.New(&supervisor.Options{Company: testsite.CompanyDomain, Join: supervisor.JoinOptions{HTTPClient: site.Client()}, Browser: supervisor.BrowserOptions{Args: site.BrowserArgs()}})
	err := sv.Start(ctx)
	if err == nil || !strings.Contains(err.Error(), "no credential source") || strings.Contains(err.Error(), "\n") {
		t.Errorf("start without credentials: %v, want one line naming the missing credential source", err)
	}
	if sv.Browser() != nil {
		t.Error("a browser was launched before the runtime knew it could join")
	}
	if err := sv.Close(); err != nil {
		t.Errorf("close after a failed start: %v", err)
	}
}

// TestNoJoinNoLiveView is the checker's runtime: the Company's domain as
// is, no Session, no live view, the marks watcher installed.
func TestNoJoinNoLiveView(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	site, _ := startSite(t)
	sv := supervisor.New(&supervisor.Options{Company: testsite.CompanyDomain, Join: supervisor.JoinOptions{Skip: true}, Browser: supervisor.BrowserOptions{WatchMarks: true, Args: site.BrowserArgs()}, Live: supervisor.LiveOptions{Off: true}})
	if err := sv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer sv.Close()
	if sv.LiveURL() != "" {
		t.Errorf("live view at %s, want none", sv.LiveURL())
	}
	if got := sv.Page().URL(); got != "about:blank" && got != "" {
		t.Errorf("page at %s before any navigation, want no join", got)
	}
	if len(site.Joins()) != 0 {
		t.Errorf("the airline saw joins: %+v", site.Joins())
	}
	res := sv.Gate().Do(ctx, gate.Navigate{URL: testsite.BookingURL()})
	if res.Outcome != spec.OutcomeDone || res.Page.Controller != spec.ControllerAgent {
		t.Errorf("navigate: %s %s (%s)", res.Outcome, res.Reason, res.Message)
	}
}

// chromiumProcesses lists the PIDs whose command line holds marker.
func chromiumProcesses(t *testing.T, marker string) []string {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc to look for processes: %v", err)
	}
	var out []string
	for _, d := range dirs {
		cmdline, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), marker) {
			out = append(out, d.Name())
		}
	}
	return out
}

// waitFor polls cond every 50 ms until it holds, failing the test after
// limit with what it waited for.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waited %s for %s", limit, what)
		case <-tick.C:
		}
	}
}

func randomHex(t *testing.T) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
