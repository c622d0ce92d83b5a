package audit

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Log writes [Entry] values as JSON lines, each stamped with the run's id
// ([RunID]) and, on a session's view ([Log.ForSession]), the session. It is
// safe for concurrent use; lines never interleave. It keeps no entry after
// writing it. A nil *Log records nothing.
type Log struct {
	// parent, session and run are set on a view (ForSession, WithRun): its
	// lines go to parent with Session (and Run) set.
	parent  *Log
	session string
	run     string

	mu     sync.Mutex
	w      io.Writer
	closer io.Closer // the file Open opened, or nil
	now    func() time.Time
	obs    map[*observer]struct{}
	// owed is what could not be written yet, oldest first (the rest of a
	// line cut short included): it is written before anything newer, so
	// the file stays whole lines in order. failure is why the last write
	// failed; nil while writing works.
	owed     []byte
	lost     int // lines dropped because owed was full
	failure  error
	watchers map[*watcher]struct{}
}

// maxOwed bounds the lines kept while the log cannot be written.
const maxOwed = 1 << 20

// ErrUnavailable means the audit log cannot be written (disk full, I/O
// error); the lines are kept (up to a bound) and written when it can.
var ErrUnavailable = errors.New("the audit log cannot be written")

// RunID is this process's run id, on every line it writes: its start time
// and a random part, so that runs appended to one file stay apart.
var RunID = sync.OnceValue(func() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b)
})

// ForSession returns a view of the log for one MCP session: its lines
// carry Session id, its observers see only that session's lines, and its
// Close does nothing (the log is the runtime's).
func (a *Log) ForSession(id string) *Log {
	if a == nil {
		return nil
	}
	run := a.run
	if a.parent != nil {
		a = a.parent
	}
	return &Log{parent: a, session: id, run: run}
}

// WithRun returns a view of the log whose lines carry run instead of
// [RunID] (examples and tests with fixed output). Its Close does nothing.
func (a *Log) WithRun(run string) *Log {
	if a == nil {
		return nil
	}
	session := a.session
	if a.parent != nil {
		a = a.parent
	}
	return &Log{parent: a, session: session, run: run}
}

// New returns a log writing to w. now stamps entries whose Time is zero;
// nil means time.Now. Close does not close w.
func New(w io.Writer, now func() time.Time) *Log {
	if now == nil {
		now = time.Now
	}
	return &Log{w: w, now: now}
}

// Open opens path for appending (creating it with mode 0600) and returns a
// log writing to it. Close closes the file. It refuses a symbolic link, a
// path that is not a regular file, and a file another user owns; an
// existing file is set to mode 0600 (or refused if it cannot be): the log
// says what the User and the agent did, for nobody else to read or plant.
func Open(path string) (*Log, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, fmt.Errorf("opening audit log: %w", err)
	}
	a := New(f, nil)
	a.closer = f
	return a, nil
}

// Record writes e as one line and hands it to the observers. A zero Time is
// set to now; times are written in UTC; control characters in text fields
// become spaces.
func (a *Log) Record(e Entry) error {
	if a == nil {
		return nil
	}
	if a.parent != nil {
		e.Session = a.session
		if a.run != "" {
			e.Run = a.run
		}
		return a.parent.Record(e)
	}
	a.mu.Lock()
	if e.Time.IsZero() {
		e.Time = a.now()
	}
	if e.Run == "" {
		e.Run = RunID()
	}
	e.Time = e.Time.UTC()
	e.clean()
	b, err := json.Marshal(e)
	if err != nil {
		a.mu.Unlock()
		return fmt.Errorf("recording audit entry: %w", err)
	}
	b = append(b, '\n')
	for o := range a.obs {
		o.fn(e)
	}
	if len(a.owed)+len(b) > maxOwed {
		a.lost++
	} else {
		a.owed = append(a.owed, b...)
	}
	err = a.flushLocked()
	fns := a.settleLocked(err)
	a.mu.Unlock()
	a.announce(fns, err)
	if err != nil {
		return fmt.Errorf("recording audit entry: %w", err)
	}
	return nil
}

// Check writes the lines still owed, if any, and reports whether the log
// can be written: nil, or an error that wraps [ErrUnavailable]. The gate
// asks before every agent action: nothing the agent does goes unrecorded.
func (a *Log) Check() error {
	if a == nil {
		return nil
	}
	if a.parent != nil {
		return a.parent.Check()
	}
	a.mu.Lock()
	if len(a.owed) == 0 && a.lost == 0 && a.failure == nil {
		a.mu.Unlock()
		return nil
	}
	err := a.flushLocked()
	fns := a.settleLocked(err)
	a.mu.Unlock()
	a.announce(fns, err)
	return err
}

// flushLocked writes what is owed (first a line saying how many were
// lost, if any) and keeps what could not be written. a.mu is held.
func (a *Log) flushLocked() error {
	if a.lost > 0 && len(a.owed)+200 <= maxOwed {
		lost := Entry{Time: a.now().UTC(), Run: RunID(), Event: EventError,
			Message: fmt.Sprintf("%d audit lines were lost while the log could not be written", a.lost)}
		if b, err := json.Marshal(lost); err == nil {
			a.owed = append(a.owed, append(b, '\n')...)
			a.lost = 0
		}
	}
	for len(a.owed) > 0 {
		n, err := a.w.Write(a.owed)
		if n > len(a.owed) {
			n = len(a.owed)
		}
		a.owed = a.owed[n:]
		if err == nil && n == 0 {
			err = io.ErrShortWrite
		}
		if err != nil {
			return fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
	}
	a.owed = nil // let the backing array go
	return nil
}

// Close closes the file opened by [Open]; otherwise (and on a view) it
// does nothing.
func (a *Log) Close() error {
	if a == nil || a.parent != nil || a.closer == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.closer.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("closing audit log: %w", err)
	}
	return nil
}
