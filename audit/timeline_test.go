package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poppy-browser/poppy-browser/internal/golden"
)

// TestTimelineGolden prints a whole session (join, actions, a refused
// marked step, an offer taken and handed back, one declined, one taken and
// cancelled, errors) as `poppy-browser audit` does.
func TestTimelineGolden(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "timeline.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteTimeline(&buf, entries); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "timeline.golden.txt"), buf.Bytes())
}

func TestTimelineEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTimeline(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "The audit log is empty.\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestAuditObserve: observers see every later entry in order, and nothing
// after they stop.
func TestAuditObserve(t *testing.T) {
	var buf bytes.Buffer
	a := New(&buf, nil)
	_ = a.Record(Entry{Event: EventJoin})
	var got []Event
	stop := a.Observe(func(e Entry) { got = append(got, e.Event) })
	_ = a.Record(Entry{Event: EventAction, Tool: "browser_click"})
	_ = a.Record(Entry{Event: EventDenied, Tool: "browser_click"})
	stop()
	_ = a.Record(Entry{Event: EventError})
	if diff := cmp.Diff([]Event{EventAction, EventDenied}, got); diff != "" {
		t.Errorf("observed (-want +got):\n%s", diff)
	}
	var nilLog *Log
	nilLog.Observe(func(Entry) {})()
}
