package gate

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// docsSurface is a surface that records the windows for new documents
// installed on it, in order.
type docsSurface struct {
	Surface // nil: only GuardNewDocuments is called
	mu      sync.Mutex
	got     []time.Time
}

func (s *docsSurface) GuardNewDocuments(_ context.Context, domain string, until time.Time) error {
	if domain != "airline.test" {
		panic("domain " + domain)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, until)
	return nil
}

func (s *docsSurface) installs() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.got...)
}

func docsGate() *Gate {
	return &Gate{log: slog.New(slog.DiscardHandler), sem: make(chan struct{}, 1), closed: make(chan struct{}), newDocs: newDocumentsWindow{domain: "airline.test"}}
}

// docsRun opens a run's window of control epoch turn and closes it after
// the action, as Gate.do does; dispatched says the action ran (its frames
// were disarmed).
func docsRun(g *Gate, s *docsSurface, turn uint64, dispatched bool, between func()) {
	r := &run{g: g, s: s, turn: turn}
	r.openNewDocuments(context.Background())
	if between != nil {
		between()
	}
	if dispatched {
		r.disarmed = []Frame{{ID: "main"}}
	}
	r.closeNewDocuments()
}

// TestNewDocumentsWindowOrder: the window's installs are ordered with the
// runs and the User's takes. A burst of actions installs the window once
// and shortens it after the last one only; a run's late shortening never
// touches a newer run's window; a take always wins over the runs of its
// epoch and older ones, and Gate.Close waits for the shortening in flight.
func TestNewDocumentsWindowOrder(t *testing.T) {
	// A burst's bounds, long enough that a loaded machine's pauses
	// between the runs below do not end a burst.
	slack, settle := newDocumentsSlack, newDocumentsSettle
	newDocumentsSlack, newDocumentsSettle = 3*time.Second, 2*time.Second
	defer func() { newDocumentsSlack, newDocumentsSettle = slack, settle }()
	after := func(got []time.Time, i int, lo, hi time.Duration, start time.Time) {
		t.Helper()
		if i >= len(got) {
			t.Fatalf("install %d missing: %v", i, got)
		}
		if d := got[i].Sub(start); d < lo || d > hi+5*time.Second { // generous: a loaded machine
			t.Errorf("install %d ends %v after the start, want %v..%v", i, d, lo, hi)
		}
	}
	t.Run("a burst installs once, then shortens once", func(t *testing.T) {
		g, s := docsGate(), &docsSurface{}
		start := time.Now()
		for range 5 {
			docsRun(g, s, 1, true, nil)
		}
		if err := g.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		got := s.installs()
		if len(got) != 2 {
			t.Fatalf("installs %v, want the window opened once and shortened once", got)
		}
		after(got, 0, newDocumentsDuring+newDocumentsAfter, newDocumentsDuring+newDocumentsAfter, start)
		after(got, 1, newDocumentsAfter, newDocumentsAfter, start)
	})
	t.Run("a late shortening leaves a newer window alone", func(t *testing.T) {
		g, s := docsGate(), &docsSurface{}
		docsRun(g, s, 1, true, nil)
		// The next run opens before the first one's shortening, which
		// comes while it runs.
		start := time.Now()
		docsRun(g, s, 1, true, func() { time.Sleep(newDocumentsSettle + time.Second) })
		if got := s.installs(); len(got) != 1 {
			t.Fatalf("installs %v while the second run ran, want the first run's opening only", got)
		}
		if err := g.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		got := s.installs()
		if len(got) != 2 {
			t.Fatalf("installs %v, want open, then the second run's shortening", got)
		}
		after(got, 1, newDocumentsAfter, newDocumentsAfter, start)
	})
	t.Run("a take wins", func(t *testing.T) {
		g, s := docsGate(), &docsSurface{}
		docsRun(g, s, 1, true, func() {
			if err := g.EndNewDocuments(t.Context(), 1); err != nil { // no page: it ends the window for the runs only
				t.Fatal(err)
			}
		})
		docsRun(g, s, 1, true, nil) // an action of the User's epoch that raced the take
		if err := g.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := s.installs(); len(got) != 1 {
			t.Fatalf("installs %v, want only the first run's opening", got)
		}
		docsRun(g, s, 2, true, nil) // after the hand back
		if err := g.newDocs.wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := s.installs(); len(got) != 3 || got[1].IsZero() || got[2].IsZero() {
			t.Fatalf("installs %v, want the next epoch's run to open and shorten its window", got)
		}
	})
	t.Run("a take that failed gives the window back", func(t *testing.T) {
		g, s := docsGate(), &docsSurface{}
		if err := g.EndNewDocuments(t.Context(), 1); err != nil {
			t.Fatal(err)
		}
		g.ResumeNewDocuments(1) // the take failed: the agent holds epoch 1 still
		docsRun(g, s, 1, true, nil)
		if err := g.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := s.installs(); len(got) != 2 || got[0].IsZero() {
			t.Fatalf("installs %v, want the agent's next action to open its window and shorten it", got)
		}
	})
	t.Run("nothing dispatched ends it, after the last action's window", func(t *testing.T) {
		g, s := docsGate(), &docsSurface{}
		docsRun(g, s, 1, false, nil)
		if err := g.newDocs.wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := s.installs(); len(got) != 2 || !got[1].IsZero() {
			t.Fatalf("installs %v, want open, then end", got)
		}
	})
}
