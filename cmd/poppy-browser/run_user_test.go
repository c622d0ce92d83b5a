package main

import (
	"context"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/internal/cli"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestRunReachesTheUser: `run` shows the User the live view's address on
// stderr with each offer of control; a User who follows it (the demo's
// auto-user, through that address only, proving presence with the
// passkey they paired with `pair` beforehand) completes their step and
// the task succeeds; the take's audit line names that passkey. The token
// is in no line the model's side writes (the story, the audit log).
func TestRunReachesTheUser(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	auditPath := t.TempDir() + "/audit.jsonl"
	store := filepath.Join(t.TempDir(), "passkeys.json")
	dev := pairByCommand(t, ctx, store)
	site, args := onDemoSite(t, "run", "--company", testsite.CompanyDomain, "--no-join", "--start", testsite.BookingURL(),
		"--task", demoTask, "--audit-log", auditPath, "--passkeys", store)
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, strings.NewReader(""), &stdout, &stderr) }()

	offerLine := regexp.MustCompile(`the agent offers you control \(offer-\d+\); take it in the live view: (http://\S+)`)
	var liveURL string
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for liveURL == "" {
		select {
		case err := <-done:
			t.Fatalf("run ended before offering control: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
		case <-ctx.Done():
			t.Fatalf("no offer line on stderr within the limit:\n%s", stderr.String())
		case <-tick.C:
			if m := offerLine.FindStringSubmatch(stderr.String()); m != nil {
				liveURL = m[1]
			}
		}
	}
	u, err := testsite.DialAutoUser(ctx, liveURL, site, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	u.ProveWith(proverOn(t, dev, liveURL), "the test's virtual authenticator")
	if err := u.Run(ctx); err != nil {
		t.Fatalf("the User's turn: %v\nstderr:\n%s", err, stderr.String())
	}
	if err := <-done; err != nil {
		t.Fatalf("run: %v\nstdout:\n%s", err, stdout.String())
	}
	if n := len(site.CheckIns()); n != 1 {
		t.Errorf("the airline recorded %d check-ins, want 1", n)
	}
	parsed, _ := url.Parse(liveURL)
	token := parsed.Query().Get("token")
	raw, _ := os.ReadFile(auditPath)
	if token == "" || strings.Contains(stdout.String(), token) || strings.Contains(string(raw), token) {
		t.Error("the live view token reached the story or the audit log")
	}
	if takes := auditTakes(t, auditPath); len(takes) != 1 || takes[0].Proof == nil || takes[0].Proof.Kind != "passkey" || takes[0].Proof.Credential != dev.ID {
		t.Errorf("takes in the audit log: %+v, want one, proved by the passkey %s", takes, dev.ID)
	}
}

// TestRunNeedsAStartWithoutAJoin: `run --no-join` without --start would
// leave the agent on about:blank: a usage error, before any browser.
func TestRunNeedsAStartWithoutAJoin(t *testing.T) {
	err := run(t.Context(), []string{"run", "--company", "airline.test", "--no-join", "--task", "t"}, strings.NewReader(""), io.Discard, io.Discard)
	var ee *cli.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(err.Error(), "--start") || strings.Contains(err.Error(), "\n") {
		t.Errorf("err = %v, want a one-line usage error naming --start", err)
	}
}
