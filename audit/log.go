package audit

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/poppy-browser/poppy-browser/internal/pagetext"
	"github.com/poppy-browser/poppy-browser/spec"
)

// Event is what an audit line records, in [Entry.Event] (CONTRACT.md).
type Event string

// Events.
const (
	EventStart    Event = "start" // the first line of a run: the runtime started
	EventJoin     Event = "join"
	EventNavigate Event = "navigate"
	EventAction   Event = "action"
	EventDenied   Event = "denied"
	EventOffer    Event = "offer"
	EventControl  Event = "control"
	EventError    Event = "error"
	EventDialog   Event = "dialog" // a page opened a dialog (its type in Message, never its text)
	EventTab      Event = "tab"    // an action opened a tab (its URL)
	// EventSessionStart and EventSessionEnd bound one MCP session's lines
	// over --http; the end's Reason says why ("idle", "closed").
	EventSessionStart Event = "session_start"
	EventSessionEnd   Event = "session_end"
	// EventLink is a hand-off link of the live view: minted, opened (the
	// viewer's user agent in Message), refused (why in Reason) or revoked,
	// in How. Never the link itself.
	EventLink Event = "link"
)

// What happened to a hand-off link, in [Entry.How] of an [EventLink] line.
const (
	LinkMinted  = "minted"
	LinkOpened  = "opened"
	LinkRefused = "refused"
	LinkRevoked = "revoked"
)

// How control changed, in [Entry.How] (package control uses the same words).
const (
	HowTake       = "take"
	HowHandedBack = "handed_back"
	HowCancelled  = "cancelled"
	// HowDeclined is an offer the User declined (an offer event): the
	// User never held control, so it is no return of control.
	HowDeclined = "declined"
)

// Who acted, in [Entry.By].
const (
	ByUser  = "user"
	ByAgent = "agent"
)

// Entry is one line of the audit log. Empty fields are left out.
//
// Callers must never put a credential, a token, or a value the User typed
// into any field (Message included).
type Entry struct {
	Time time.Time `json:"time"`
	// Run is one process start's id ([RunID]); Session names the MCP
	// session over --http. A [Log] fills both.
	Run     string `json:"run,omitempty"`
	Session string `json:"session,omitempty"`
	Event   Event  `json:"event"`
	Tool    string `json:"tool,omitempty"`
	Ref     string `json:"ref,omitempty"`
	Reason  string `json:"reason,omitempty"`
	From    string `json:"from,omitempty"`
	To      string `json:"to,omitempty"`
	How     string `json:"how,omitempty"`
	By      string `json:"by,omitempty"`
	Offer   string `json:"offer,omitempty"` // offer ID, for offer and control events
	URL     string `json:"url,omitempty"`
	Message string `json:"message,omitempty"`
	// Epoch is the agent's page epoch (the refs' epoch) on the gate's
	// lines; ControlEpoch counts the User's returns of control on control
	// lines. They are different clocks, so they have different names.
	Epoch        uint64 `json:"epoch,omitempty"`
	ControlEpoch uint64 `json:"control_epoch,omitempty"`
	// Mark is the mark that refused a user_step denial; nil otherwise.
	Mark *Mark `json:"mark,omitempty"`
	// Device is the screen the User took control on (their live view's
	// size), on a take's control line; nil when they took it without one
	// (the terminal UI).
	Device *Device `json:"device,omitempty"`
	// UserMessage is the User's own message to the agent on the control
	// (or declined offer) line where they left one, by: "user": words they
	// wrote for the agent, not a value typed into a page; package control
	// caps it and removes control characters.
	UserMessage string `json:"user_message,omitempty"`
}

// Device is the size of the User's screen: CSS pixels, device pixel ratio,
// and whether it is a touch screen or a phone.
type Device struct {
	Width  int     `json:"width"`
	Height int     `json:"height"`
	Scale  float64 `json:"scale"`
	Mobile bool    `json:"mobile,omitempty"`
	Touch  bool    `json:"touch,omitempty"`
}

// Mark names the marked step that refused an action, by element refs.
type Mark struct {
	Kind    spec.MarkKind `json:"kind"`
	Marked  string        `json:"marked"`  // ref of the element bearing the mark
	Touches string        `json:"touches"` // ref of the element the action would change
}

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

// watcher is one function registered with [Log.WatchHealth].
type watcher struct{ fn func(error) }

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

// observer is one function registered with [Log.Observe].
type observer struct{ fn func(Entry) }

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

// announce tells the watchers, if the log's health changed, that it
// cannot be written (err) or can again (nil). a.mu is not held.
func (a *Log) announce(fns []func(error), err error) {
	for _, fn := range fns {
		fn(err)
	}
}

// settleLocked records the outcome of a flush and returns the watchers to
// tell when the health changed. a.mu is held.
func (a *Log) settleLocked(err error) []func(error) {
	was := a.failure != nil
	a.failure = err
	if was == (err != nil) {
		return nil
	}
	fns := make([]func(error), 0, len(a.watchers))
	for w := range a.watchers {
		fns = append(fns, w.fn)
	}
	return fns
}

// WatchHealth calls fn when the log stops being writable (with the
// error) and when it is again (with nil), until the returned function is
// called. fn must not record into the log.
func (a *Log) WatchHealth(fn func(error)) (stop func()) {
	if a == nil || fn == nil {
		return func() {}
	}
	if a.parent != nil {
		return a.parent.WatchHealth(fn)
	}
	w := &watcher{fn: fn}
	a.mu.Lock()
	if a.watchers == nil {
		a.watchers = map[*watcher]struct{}{}
	}
	a.watchers[w] = struct{}{}
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		delete(a.watchers, w)
		a.mu.Unlock()
	}
}

// clean replaces control characters (a page's title or URL, the model's
// reason) with spaces in every text field.
func (e *Entry) clean() {
	e.Event = Event(pagetext.Line(string(e.Event)))
	for _, f := range []*string{&e.Run, &e.Session, &e.Tool, &e.Ref, &e.Reason, &e.From, &e.To,
		&e.How, &e.By, &e.Offer, &e.Message, &e.UserMessage} {
		*f = pagetext.Line(*f)
	}
	if e.URL != "" {
		e.URL = pagetext.URL(withoutQuery(e.URL)) // a data: URL is only summarised
	}
	e.From, e.To = withoutQuery(e.From), withoutQuery(e.To)
	if e.Mark != nil {
		m := *e.Mark
		m.Kind = spec.MarkKind(pagetext.Line(string(m.Kind)))
		m.Marked, m.Touches = pagetext.Line(m.Marked), pagetext.Line(m.Touches)
		e.Mark = &m
	}
}

// withoutQuery drops a web URL's query, fragment and user info (a form
// sent with GET puts what the User typed in the query); anything else it
// returns as it is.
func withoutQuery(s string) string {
	if _, ok := pagetext.WebHost(s); !ok {
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment, u.User = "", false, "", "", nil
	return u.String()
}

// Observe calls fn with every entry recorded from now on, in order, until
// the returned function is called. fn runs while the log is locked: it must
// return at once and must not record into the log (the terminal UI hands
// entries to a queue). Observe on a nil *Log does nothing.
func (a *Log) Observe(fn func(Entry)) (stop func()) {
	if a == nil || fn == nil {
		return func() {}
	}
	if a.parent != nil {
		session := a.session
		return a.parent.Observe(func(e Entry) {
			if e.Session == session {
				fn(e)
			}
		})
	}
	o := &observer{fn: fn}
	a.mu.Lock()
	if a.obs == nil {
		a.obs = map[*observer]struct{}{}
	}
	a.obs[o] = struct{}{}
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		delete(a.obs, o)
		a.mu.Unlock()
	}
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

// Read parses an audit log. Blank lines are skipped; a line that is not a
// JSON object fails with its line number, returning the entries before it.
func Read(r io.Reader) ([]Entry, error) {
	var out []Entry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(b, &e); err != nil {
			return out, fmt.Errorf("reading audit log: line %d: %w", line, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("reading audit log: %w", err)
	}
	return out, nil
}
