package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/spec"
)

// TestRecordFormat writes the gate's and control's kinds of line, checks
// them byte for byte against docs/reference.md's format, and reads them back.
func TestRecordFormat(t *testing.T) {
	var buf bytes.Buffer
	at := time.Date(2026, 3, 1, 9, 30, 0, 0, time.FixedZone("CET", 3600))
	a := New(&buf, func() time.Time { return at })
	var observed []Entry
	defer a.Observe(func(e Entry) { observed = append(observed, e) })()
	in := []Entry{
		{Event: EventDenied, Tool: "browser_click", Ref: "e3", Reason: "user_step", URL: "https://airline.test/check-in", Epoch: 2,
			Mark: &Mark{Kind: spec.Submission, Marked: "e2", Touches: "e3"}},
		{Event: EventControl, From: "user", To: "agent", How: HowHandedBack, By: ByUser, Offer: "offer-1", ControlEpoch: 1},
	}
	for _, e := range in {
		if err := a.Record(e); err != nil {
			t.Fatal(err)
		}
	}
	want := `{"time":"2026-03-01T08:30:00Z","run":"RUN","event":"denied","tool":"browser_click","ref":"e3","reason":"user_step","url":"https://airline.test/check-in","epoch":2,"mark":{"kind":"submission","marked":"e2","touches":"e3"}}
{"time":"2026-03-01T08:30:00Z","run":"RUN","event":"control","from":"user","to":"agent","how":"handed_back","by":"user","offer":"offer-1","control_epoch":1}
`
	want = strings.ReplaceAll(want, "RUN", RunID())
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	read, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(observed, read); diff != "" {
		t.Errorf("Read (-observed +read):\n%s", diff)
	}
}

// TestRecordDropsControlCharacters: a page title or URL with a newline or
// an escape sequence cannot forge a timeline line or colour a terminal.
func TestRecordDropsControlCharacters(t *testing.T) {
	var buf bytes.Buffer
	a := New(&buf, nil)
	if err := a.Record(Entry{Event: EventError, Message: "page said \x1b[31mhi\nfake line\x00", URL: "https://airline.test/\r"}); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// One safe line (package pagetext): control characters gone, spaces
	// folded; a URL that does not parse is only summarised.
	if got[0].Message != "page said [31mhi fake line" || got[0].URL != "a https: URL" {
		t.Errorf("message %q url %q, want one safe line and a summarised URL", got[0].Message, got[0].URL)
	}
	var tl bytes.Buffer
	if err := WriteTimeline(&tl, got); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(tl.String(), "\x1b\x00\r") || strings.Count(tl.String(), "fake line") != 1 {
		t.Errorf("timeline holds control characters:\n%q", tl.String())
	}
}

func TestReadErrors(t *testing.T) {
	in := `{"time":"2026-03-01T09:30:00Z","event":"join"}` + "\n\n" + "not json\n"
	got, err := Read(strings.NewReader(in))
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("Read error = %v, want one naming line 3", err)
	}
	if len(got) != 1 || got[0].Event != EventJoin {
		t.Errorf("entries before the bad line = %+v, want the join", got)
	}
}

func TestOpenAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	for _, ev := range []Event{EventJoin, EventNavigate} {
		a, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Record(Entry{Event: ev, URL: "https://airline.test/"}); err != nil {
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
	got, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	var events []Event
	for _, e := range got {
		events = append(events, e.Event)
		if e.Time.IsZero() {
			t.Errorf("entry %q has no time", e.Event)
		}
	}
	if diff := cmp.Diff([]Event{EventJoin, EventNavigate}, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestNilAuditLog(t *testing.T) {
	var a *Log
	if err := a.Record(Entry{Event: EventJoin}); err != nil {
		t.Errorf("nil log Record: %v", err)
	}
	if a.Close() != nil {
		t.Error("nil log is not a no-op")
	}
}

// TestRunAndSession: every line of a process carries its run id; a log
// from With adds the session, shares the file, and closes nothing.
func TestRunAndSession(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s1, s2 := a.ForSession("s-1"), a.ForSession("s-2")
	_ = a.Record(Entry{Event: EventStart})
	_ = s1.Record(Entry{Event: EventAction, Tool: "browser_click"})
	_ = s2.Record(Entry{Event: EventOffer, Offer: "offer-1"})
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	_ = s2.Record(Entry{Event: EventOffer, Offer: "offer-2"}) // the file is still open
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	got, err := Read(f)
	if err != nil || len(got) != 4 {
		t.Fatalf("read %d entries: %v", len(got), err)
	}
	sessions := []string{"", "s-1", "s-2", "s-2"}
	for i, e := range got {
		if e.Run != RunID() || e.Run == "" || e.Session != sessions[i] {
			t.Errorf("line %d: run %q session %q, want run %q session %q", i+1, e.Run, e.Session, RunID(), sessions[i])
		}
	}
	var nilLog *Log
	if nilLog.ForSession("x") != nil {
		t.Error("ForSession on a nil log is not nil")
	}
}

// TestRecordDropsQueries: no URL field keeps a query, a fragment or user
// info (a form sent with GET puts what the User typed there).
func TestRecordDropsQueries(t *testing.T) {
	var buf bytes.Buffer
	a := New(&buf, nil)
	_ = a.Record(Entry{Event: EventNavigate, By: ByUser, URL: "https://u:pw@airline.test/find?name=typed#frag",
		From: "https://airline.test/a?x=typed", To: "https://airline.test/b#typed"})
	_ = a.Record(Entry{Event: EventControl, From: "agent", To: "user"})
	if strings.Contains(buf.String(), "typed") || strings.Contains(buf.String(), "pw") {
		t.Errorf("the log holds a query, fragment or password: %s", buf.String())
	}
	got, _ := Read(&buf)
	if len(got) != 2 || got[0].URL != "https://airline.test/find" || got[1].From != "agent" || got[1].To != "user" {
		t.Errorf("read %+v", got)
	}
}
