package control

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/internal/golden"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestAuditGolden runs a whole hand-over, including a failed take, and
// compares the JSONL the control package writes with testdata.
func TestAuditGolden(t *testing.T) {
	ctx := testContext(t)
	clock := &stepClock{}
	var buf bytes.Buffer
	audit := NewAuditLog(&buf, clock.Now)
	failTake := true
	c := New(&Options{Audit: audit, Now: clock.Now, Apply: func(_ context.Context, to spec.Controller) error {
		if to == spec.ControllerUser && failTake {
			failTake = false
			return errors.New("setting controller in frame 3: target closed")
		}
		return nil
	}})
	c.RequestUser("the airline asks you to check in yourself", &Step{Ref: "e12", Kind: "submission", Text: "Check in"})
	if err := c.User().Take(ctx); err == nil {
		t.Fatal("first take succeeded, want the apply failure")
	}
	run(ctx, t, c, []step{{op: "take"}, {op: "handback"}, {op: "request"}, {op: "cancel"}, {op: "take"}, {op: "cancel"}})
	if err := audit.Record(AuditEntry{Event: EventDenied, Tool: "browser_click", Ref: "e3", Reason: "user_step",
		Mark: map[string]any{"kind": "submission", "marked": "e2", "touches": "e3"}}); err != nil {
		t.Fatal(err)
	}

	golden.Check(t, filepath.Join("testdata", "audit.golden.jsonl"), buf.Bytes())
	if strings.Contains(buf.String(), "Check in") {
		t.Error("audit log holds page text from the step")
	}

	// ReadAudit gives back what was recorded.
	read, err := ReadAudit(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(audit.Entries(), read); diff != "" {
		t.Errorf("ReadAudit (-recorded +read):\n%s", diff)
	}
}

func TestReadAuditErrors(t *testing.T) {
	in := `{"time":"2026-03-01T09:30:00Z","event":"join"}` + "\n\n" + "not json\n"
	got, err := ReadAudit(strings.NewReader(in))
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("ReadAudit error = %v, want one naming line 3", err)
	}
	if len(got) != 1 || got[0].Event != EventJoin {
		t.Errorf("entries before the bad line = %+v, want the join", got)
	}
}

func TestOpenAuditLogAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	for _, ev := range []string{EventJoin, EventNavigate} {
		a, err := OpenAuditLog(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Record(AuditEntry{Event: ev, URL: "https://airline.test/"}); err != nil {
			t.Fatal(err)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("audit log mode = %v, want 0600", perm)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ReadAudit(f)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, e := range got {
		events = append(events, e.Event)
		if e.Time.IsZero() {
			t.Errorf("entry %q has no time", e.Event)
		}
	}
	if diff := cmp.Diff([]string{EventJoin, EventNavigate}, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestNilAuditLog(t *testing.T) {
	var a *AuditLog
	if err := a.Record(AuditEntry{Event: EventJoin}); err != nil {
		t.Errorf("nil log Record: %v", err)
	}
	if a.Entries() != nil || a.Close() != nil {
		t.Error("nil log is not a no-op")
	}
}
