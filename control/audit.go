package control

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Audit event names, in [AuditEntry.Event].
const (
	EventJoin     = "join"
	EventNavigate = "navigate"
	EventAction   = "action"
	EventDenied   = "denied"
	EventOffer    = "offer"
	EventControl  = "control"
	EventError    = "error"
)

// AuditEntry is one line of the audit log. Empty fields are left out.
//
// Callers must never put a credential, a token, or a value the User typed
// into any field (Message and Mark included).
type AuditEntry struct {
	Time    time.Time `json:"time"`
	Event   string    `json:"event"`
	Tool    string    `json:"tool,omitempty"`
	Ref     string    `json:"ref,omitempty"`
	Reason  string    `json:"reason,omitempty"`
	From    string    `json:"from,omitempty"`
	To      string    `json:"to,omitempty"`
	How     string    `json:"how,omitempty"`
	By      string    `json:"by,omitempty"`
	Offer   string    `json:"offer,omitempty"` // offer ID, for offer and control events
	URL     string    `json:"url,omitempty"`
	Message string    `json:"message,omitempty"`
	// Epoch is the agent's page epoch (the refs' epoch) on the gate's
	// lines; ControlEpoch counts the User's returns of control on control
	// lines. They are different clocks, so they have different names.
	Epoch        uint64 `json:"epoch,omitempty"`
	ControlEpoch uint64 `json:"control_epoch,omitempty"`
	Mark         any    `json:"mark,omitempty"`
}

// AuditLog writes [AuditEntry] values as JSON lines. It is safe for
// concurrent use; lines never interleave. A nil *AuditLog records nothing.
type AuditLog struct {
	mu      sync.Mutex
	w       io.Writer
	closer  io.Closer // the file OpenAuditLog opened, or nil
	now     func() time.Time
	entries []AuditEntry
	obs     map[*observer]struct{}
}

// observer is one function registered with [AuditLog.Observe].
type observer struct{ fn func(AuditEntry) }

// NewAuditLog returns a log writing to w. now stamps entries whose Time is
// zero; nil means time.Now. Close does not close w.
func NewAuditLog(w io.Writer, now func() time.Time) *AuditLog {
	if now == nil {
		now = time.Now
	}
	return &AuditLog{w: w, now: now}
}

// OpenAuditLog opens path for appending (creating it with mode 0600) and
// returns a log writing to it. Close closes the file.
func OpenAuditLog(path string) (*AuditLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening audit log: %w", err)
	}
	a := NewAuditLog(f, nil)
	a.closer = f
	return a, nil
}

// Record writes e as one line. A zero Time is set to now; times are written
// in UTC.
func (a *AuditLog) Record(e AuditEntry) error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if e.Time.IsZero() {
		e.Time = a.now()
	}
	e.Time = e.Time.UTC()
	e = e.sanitized() // page strings reach terminals: see audit_sanitize.go
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("recording audit entry: %w", err)
	}
	b = append(b, '\n')
	a.entries = append(a.entries, e)
	for o := range a.obs {
		o.fn(e)
	}
	if _, err := a.w.Write(b); err != nil {
		return fmt.Errorf("recording audit entry: %w", err)
	}
	return nil
}

// Observe calls fn with every entry recorded from now on, in order, until
// the returned function is called. fn runs while the log is locked: it must
// return at once and must not record into the log (the terminal UI hands
// entries to a queue). Observe on a nil *AuditLog does nothing.
func (a *AuditLog) Observe(fn func(AuditEntry)) (stop func()) {
	if a == nil || fn == nil {
		return func() {}
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

// Entries returns a copy of every entry recorded through this log, in order.
func (a *AuditLog) Entries() []AuditEntry {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]AuditEntry(nil), a.entries...)
}

// Close closes the file opened by [OpenAuditLog]; otherwise it does nothing.
func (a *AuditLog) Close() error {
	if a == nil || a.closer == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.closer.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("closing audit log: %w", err)
	}
	return nil
}

// ReadAudit parses an audit log. Blank lines are skipped; a line that is not
// a JSON object fails with its line number. Mark decodes to map[string]any.
func ReadAudit(r io.Reader) ([]AuditEntry, error) {
	var out []AuditEntry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var e AuditEntry
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
