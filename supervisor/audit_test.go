package supervisor_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestAuditStartAndUserNavigations: a run's log begins with its start
// line and every line carries the run; the User's own navigations during
// their turn are recorded as theirs (a failed one with its URL), with no
// query; the agent's are not.
func TestAuditStartAndUserNavigations(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	site, _ := startSite(t)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	sv := supervisor.New(&supervisor.Options{
		Company: testsite.CompanyDomain,
		Join:    supervisor.JoinOptions{Skip: true},
		Browser: supervisor.BrowserOptions{Args: site.BrowserArgs()},
		Live:    supervisor.LiveOptions{Off: true},
		Audit:   supervisor.AuditOptions{File: path},
	})
	if err := sv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer sv.Close()
	var mu sync.Mutex
	var userNavs []audit.Entry
	stop := sv.Audit().Observe(func(e audit.Entry) {
		if e.Event == audit.EventNavigate && e.By == audit.ByUser {
			mu.Lock()
			userNavs = append(userNavs, e)
			mu.Unlock()
		}
	})
	defer stop()
	if res := sv.Gate().Do(ctx, gate.Navigate{URL: testsite.BookingURL()}); res.Outcome != spec.OutcomeDone {
		t.Fatalf("agent navigate: %s (%s)", res.Outcome, res.Message)
	}
	if err := sv.Control().User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	// The User navigates in their turn (as a click of theirs would).
	if _, err := sv.Page().Navigate(ctx, testsite.CheckInURL()+"?passport=typed-by-user"); err != nil {
		t.Fatal(err)
	}
	_, _ = sv.Page().Navigate(ctx, "https://nowhere.invalid/") // fails: no such host
	waitFor(t, 30*time.Second, "two navigations recorded as the User's", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(userNavs) >= 2
	})
	if err := sv.Control().User().HandBack(ctx); err != nil {
		t.Fatal(err)
	}
	if res := sv.Gate().Do(ctx, gate.Navigate{URL: testsite.BookingURL()}); res.Outcome != spec.OutcomeDone {
		t.Fatalf("agent navigate after hand back: %s (%s)", res.Outcome, res.Message)
	}
	if err := sv.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, err := audit.Read(f)
	if err != nil || len(entries) == 0 {
		t.Fatalf("read %d entries: %v", len(entries), err)
	}
	if e := entries[0]; e.Event != audit.EventStart || e.Run == "" || !strings.HasPrefix(e.Message, "poppy-browser ") {
		t.Errorf("first line %+v, want the run's start", e)
	}
	var users []string
	for _, e := range entries {
		if e.Run != entries[0].Run {
			t.Errorf("line %+v carries another run than %q", e, entries[0].Run)
		}
		if e.Event == audit.EventNavigate && e.By == audit.ByUser {
			users = append(users, e.URL+" "+e.Reason)
		}
	}
	want := []string{testsite.CheckInURL() + " ", "https://nowhere.invalid/ failed to load"}
	if strings.Join(users, "|") != strings.Join(want, "|") {
		t.Errorf("the User's navigations %q, want %q", users, want)
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), "typed-by-user") {
		t.Error("the audit log holds a query the User's navigation carried")
	}
}
