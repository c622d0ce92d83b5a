package supervisor_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestServerSessionsAreIsolated: two Sessions of one Server, each joined
// in its own browser context of one Chromium, have their own cookies,
// tabs, holder of control (what navigator.poppy reads) and audit lines;
// closing one disposes of its context and records why.
func TestServerSessionsAreIsolated(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	site, signer := startSite(t)
	auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
	srv := supervisor.NewServer(&supervisor.Options{
		Company:           testsite.CompanyDomain,
		ContextPerSession: true,
		Join: supervisor.JoinOptions{
			Credentials: signer,
			HTTPClient:  site.Client(),
			ReturnTo:    testsite.BookingURL(),
		},
		Browser: supervisor.BrowserOptions{Args: site.BrowserArgs()},
		Audit:   supervisor.AuditOptions{File: auditPath},
	})
	defer srv.Close()
	go func() { _ = srv.Start(ctx) }()
	a, err := srv.NewSession(ctx, "session-a")
	if err != nil {
		t.Fatalf("session A: %v", err)
	}
	defer a.Close(ctx, "closed")
	b, err := srv.NewSession(ctx, "session-b")
	if err != nil {
		t.Fatalf("session B: %v", err)
	}
	defer b.Close(ctx, "closed")

	// Cookies: each joined with its own session cookie.
	cookie := func(s *supervisor.Session) string {
		cs, err := s.Page().Cookies(ctx, testsite.BookingURL())
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if c.Name == testsite.SessionCookie {
				return c.Value
			}
		}
		return ""
	}
	ca, cb := cookie(a), cookie(b)
	if ca == "" || cb == "" || ca == cb {
		t.Errorf("session cookies: A has one: %v, B has one: %v, the same: %v", ca != "", cb != "", ca == cb)
	}
	// Tabs: each context holds its own page, and not the other's.
	if a.Page() == b.Page() {
		t.Fatal("both sessions drive the same tab")
	}
	for _, p := range a.Page().Context().Pages() {
		if p == b.Page() {
			t.Error("B's tab is in A's browser context")
		}
	}
	// Control: A's User takes control; only A's page reads "user".
	if err := a.Control().User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	reads := func(p *browser.Page) string {
		var got string
		if err := p.MainFrame().Call(ctx, "", "() => navigator.poppy ? navigator.poppy.controller : 'none'", &got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := reads(a.Page()); got != string(spec.ControllerUser) {
		t.Errorf("A's page reads %q after A's User took control", got)
	}
	if got := reads(b.Page()); got != string(spec.ControllerAgent) {
		t.Errorf("B's page reads %q after A's User took control", got)
	}
	if st := b.Control().Status(); st.Controller != spec.ControllerAgent {
		t.Errorf("B's controller: %s", st.Controller)
	}
	// A new document in B starts with B's holder, not A's.
	if _, err := b.Page().Navigate(ctx, testsite.CheckInURL()); err != nil {
		t.Fatal(err)
	}
	if got := reads(b.Page()); got != string(spec.ControllerAgent) {
		t.Errorf("B's new document reads %q", got)
	}

	// Closing A disposes of its context and says why.
	if err := a.Close(ctx, "idle"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.Page().Done():
	case <-ctx.Done():
		t.Fatal("A's tab stayed open after A closed")
	}
	if b.Page().URL() != testsite.CheckInURL() {
		t.Errorf("B's page after A closed: %s", b.Page().URL())
	}

	raw, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := audit.Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string][]string{}
	for _, e := range entries {
		seen[e.Session] = append(seen[e.Session], string(e.Event))
		if e.Event == audit.EventSessionEnd && (e.Session != "session-a" || e.Reason != "idle") {
			t.Errorf("end line: %+v", e)
		}
	}
	for _, id := range []string{"session-a", "session-b"} {
		if got := strings.Join(seen[id], " "); !strings.Contains(got, "session_start") || !strings.Contains(got, "join") {
			t.Errorf("%s's audit lines: %s", id, got)
		}
	}
	if got := strings.Join(seen["session-a"], " "); !strings.Contains(got, "control") || !strings.HasSuffix(got, "session_end") {
		t.Errorf("A's audit lines: %s", got)
	}
	if got := strings.Join(seen["session-b"], " "); strings.Contains(got, "control") {
		t.Errorf("B's audit lines hold A's take: %s", got)
	}
	if got := strings.Join(seen[""], " "); got != "start" { // the run's own line
		t.Errorf("audit lines without a session: %v, want the run's start alone", seen[""])
	}
}

// TestSupervisorUsesTheFirstTab: a runtime of one Session drives the tab
// Chromium opened at launch, in the default context: no extra tab.
func TestSupervisorUsesTheFirstTab(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	site, _ := startSite(t)
	sv := supervisor.New(&supervisor.Options{Company: testsite.CompanyDomain, Join: supervisor.JoinOptions{Skip: true}, Browser: supervisor.BrowserOptions{Args: site.BrowserArgs()}, Live: supervisor.LiveOptions{Off: true}})
	if err := sv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer sv.Close()
	if n := len(sv.Browser().Pages()); n != 1 {
		t.Errorf("%d tabs open, want the one Chromium opened", n)
	}
}

// TestOptionsCheck: what Start would refuse at once is known before it
// runs, without I/O.
func TestOptionsCheck(t *testing.T) {
	_, signer := startSite(t)
	for _, c := range []struct {
		opts supervisor.Options
		ok   bool
	}{
		{supervisor.Options{}, false},
		{supervisor.Options{Company: "https://127.0.0.1"}, false},
		{supervisor.Options{Company: "airline.test"}, false}, // no credential
		{supervisor.Options{Company: "airline.test", Join: supervisor.JoinOptions{Credentials: signer}}, true},
		{supervisor.Options{Company: "airline.test", Join: supervisor.JoinOptions{Skip: true}}, true},
		{supervisor.Options{Company: "127.0.0.1", Join: supervisor.JoinOptions{Skip: true}}, true}, // a development host (issue 12): that address only
		{supervisor.Options{Company: "[::1]", Join: supervisor.JoinOptions{Skip: true}}, false},
	} {
		if err := c.opts.Check(); (err == nil) != c.ok {
			t.Errorf("%q (no join: %v): %v, want ok %v", c.opts.Company, c.opts.Join.Skip, err, c.ok)
		}
	}
}

// TestServerSessionFailedJoin: a Session whose join fails returns the
// error and leaves nothing of its own behind (its browser context is
// disposed); the Server goes on serving others.
func TestServerSessionFailedJoin(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	site, signer := startSite(t)
	srv := supervisor.NewServer(&supervisor.Options{
		Company:           testsite.CompanyDomain,
		ContextPerSession: true,
		Join: supervisor.JoinOptions{
			Credentials: signer,
			HTTPClient:  site.Client(),
			ReturnTo:    testsite.BookingURL(),
		},
		Browser: supervisor.BrowserOptions{Args: site.BrowserArgs()},
		Live:    supervisor.LiveOptions{Off: true},
	})
	defer srv.Close()
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	before := len(srv.Browser().Pages())
	site.SetJoinAnswer(testsite.JoinAnswerNoCookie)
	if _, err := srv.NewSession(ctx, "broken"); err == nil {
		t.Fatal("a session joined without a cookie")
	}
	waitFor(t, 30*time.Second, "the failed session's tab is gone", func() bool { return len(srv.Browser().Pages()) == before })
	site.SetJoinAnswer(testsite.JoinAnswerSeeOther)
	ss, err := srv.NewSession(ctx, "fine")
	if err != nil {
		t.Fatalf("a session after a failed one: %v", err)
	}
	ss.Close(ctx, "closed")
}
