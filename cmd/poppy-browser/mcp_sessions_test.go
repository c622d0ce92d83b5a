package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// bearer adds the token to every request of an MCP client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestMCPHTTPSessions runs `poppy-browser mcp --http` with two go-sdk
// clients over real HTTP: each has its own page and refs (B's navigation
// leaves A's refs valid), its own control (A's User taking control does
// not touch B) and its own audit lines; a third client is refused by
// --max-sessions; an idle session ends after --session-idle.
func TestMCPHTTPSessions(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
	store := filepath.Join(t.TempDir(), "passkeys.json")
	dev := pairByCommand(t, ctx, store) // the User paired their device beforehand
	_, args := onDemoSite(t, "mcp", "--company", testsite.CompanyDomain, "--no-join", "--http", "127.0.0.1:0",
		"--audit-log", auditPath, "--max-sessions", "2", "--session-idle", "3s", "--passkeys", store)
	rt := startHTTPRuntime(t, ctx, args)
	defer func() {
		if err := rt.stop(); err != nil {
			t.Errorf("mcp --http: %v", err)
		}
	}()
	stderr, endpoint, token := &rt.stderr, rt.endpoint, rt.token
	connect := func() (*mcp.ClientSession, error) {
		c := mcp.NewClient(&mcp.Implementation{Name: "model", Version: "1"}, nil)
		return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint,
			HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}, MaxRetries: -1}, nil)
	}
	start := time.Now()
	csA, err := connect()
	if err != nil {
		t.Fatal(err)
	}
	defer csA.Close()
	t.Logf("initialize answered in %v (Chromium starts beside it)", time.Since(start))
	csB, err := connect()
	if err != nil {
		t.Fatal(err)
	}
	defer csB.Close()
	// A step of this test (a browser context's first page, the User's live
	// view) can take longer than --session-idle on a loaded machine, and a
	// session that waits for the other's step would end as idle: both ping
	// until the test lets them go idle.
	keep, letIdle := context.WithCancel(ctx)
	var pinging sync.WaitGroup
	defer func() { letIdle(); pinging.Wait() }()
	for _, cs := range []*mcp.ClientSession{csA, csB} {
		pinging.Go(func() {
			tick := time.NewTicker(250 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-keep.Done():
					return
				case <-tick.C:
					_ = cs.Ping(keep, nil) // a failed ping shows as the test's next call failing
				}
			}
		})
	}
	a := &demo{t: t, mcp: csA}
	b := &demo{t: t, mcp: csB}

	pageA := "https://" + testsite.CompanyDomain + "/fixtures/check-in-unmarked"
	pageB := "https://" + testsite.CompanyDomain + "/fixtures/popup"
	if r := a.call(ctx, "browser_navigate", map[string]any{"url": pageA}); r.Outcome != "done" {
		t.Fatalf("A navigates: %+v", r)
	}
	passport := ref(t, a.snapshot(ctx), "textbox", "Passport")
	if r := b.call(ctx, "browser_navigate", map[string]any{"url": pageB}); r.Outcome != "done" {
		t.Fatalf("B navigates: %+v", r)
	}
	r := a.call(ctx, "browser_click", map[string]any{"ref": passport.Ref})
	if r.Outcome != "done" || r.Page.URL != pageA {
		t.Errorf("A clicks its ref after B navigated: %+v", r)
	}

	// A's User takes control in A's own live view.
	lives := regexp.MustCompile(`live view for the User of MCP session (\S+): (\S+)`).FindAllStringSubmatch(stderr.String(), -1)
	liveOf := map[string]string{}
	for _, m := range lives {
		liveOf[m[1]] = m[2]
	}
	if liveOf[csA.ID()] == "" || liveOf[csB.ID()] == "" || liveOf[csA.ID()] == liveOf[csB.ID()] {
		t.Fatalf("live views by session: %v (A %s, B %s)", liveOf, csA.ID(), csB.ID())
	}
	if !strings.HasPrefix(liveOf[csA.ID()], "http://localhost:") {
		t.Fatalf("A's live view %s: a passkey's RP ID cannot be an IP address", liveOf[csA.ID()])
	}
	u := connectUser(t, ctx, liveOf[csA.ID()])
	u.proveWith(ctx, proverOn(t, dev, liveOf[csA.ID()]))
	u.send(map[string]any{"type": "take"})
	u.controller(ctx, "user")
	if st := a.call(ctx, "browser_control_status", nil); st.Controller != "user" {
		t.Errorf("A's controller after A's User took control: %q", st.Controller)
	}
	if st := b.call(ctx, "browser_control_status", nil); st.Controller != "agent" {
		t.Errorf("B's controller after A's User took control: %q", st.Controller)
	}
	if r := a.call(ctx, "browser_click", map[string]any{"ref": passport.Ref}); r.Reason != "user_has_control" {
		t.Errorf("A acts while its User holds control: %+v", r)
	}
	if r := b.call(ctx, "browser_navigate", map[string]any{"url": pageA}); r.Outcome != "done" {
		t.Errorf("B acts while A's User holds control: %+v", r)
	}

	// The cap.
	if _, err := connect(); err == nil || !strings.Contains(err.Error(), "at most 2") {
		t.Errorf("a third client: %v, want a refusal naming --max-sessions", err)
	}

	// Idle sessions end; the audit log says whose lines are whose.
	letIdle()
	pinging.Wait()
	var entries []audit.Entry
	waitUntil(t, ctx, "both idle sessions end in the audit log", func() bool {
		raw, err := os.ReadFile(auditPath)
		if err != nil {
			return false
		}
		entries, _ = audit.Read(bytes.NewReader(raw))
		ends := 0
		for _, e := range entries {
			if e.Event == audit.EventSessionEnd && e.Reason == "idle" {
				ends++
			}
		}
		return ends == 2
	})
	navigated := map[string][]string{}
	for _, e := range entries {
		if e.Session == "" && e.Event != "start" { // a run's own start line has no session
			b, _ := json.Marshal(e)
			t.Errorf("an audit line without a session: %s", b)
		}
		if e.Event == audit.EventNavigate {
			navigated[e.Session] = append(navigated[e.Session], e.URL)
		}
		if e.Event == audit.EventControl && e.Session != csA.ID() {
			t.Errorf("a control line of another session: %+v", e)
		}
		if e.Event == audit.EventControl && e.How == audit.HowTake && (e.Proof == nil || e.Proof.Kind != "passkey" || e.Proof.Credential != dev.ID) {
			t.Errorf("A's take, want it proved by the passkey %s: %+v", dev.ID, e)
		}
	}
	if got := strings.Join(navigated[csA.ID()], " "); got != pageA {
		t.Errorf("A's navigations in the audit log: %q", got)
	}
	if got := strings.Join(navigated[csB.ID()], " "); got != pageB+" "+pageA {
		t.Errorf("B's navigations in the audit log: %q", got)
	}
	if _, err := csB.CallTool(ctx, &mcp.CallToolParams{Name: "browser_control_status"}); err == nil {
		t.Error("a call on an expired session succeeded")
	}
}
