package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/poppy-browser/poppy-browser/internal/pagetext"
	"github.com/poppy-browser/poppy-browser/spec"
)

// Event is what an audit line records, in [Entry.Event] (docs/reference.md).
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
	// EventFile is a file that crossed the live view in the User's turn:
	// How says which way (FileChosen, FileDownloaded), File names it.
	// Never its bytes, its path or a link to it.
	EventFile Event = "file"
)

// Which way a file went, in [Entry.How] of an [EventFile] line.
const (
	FileChosen     = "chosen"     // the User chose it for the page's file input
	FileDownloaded = "downloaded" // the page's download, offered to the User
)

// What happened to a hand-off link, in [Entry.How] of an [EventLink] line.
const (
	LinkMinted  = "minted"
	LinkOpened  = "opened"
	LinkRefused = "refused"
	LinkRevoked = "revoked"
)

// How control changed, in [Entry.How] of an offer or control line: the
// words [EntryOf] writes for control's events.
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
	// Subject is the hash of the MCP session's User (sha256: of the sub of
	// the OAuth token that began it), on its session_start line over
	// --http with OAuth; never the subject itself.
	Subject string `json:"subject,omitempty"`
	// Proof is how the User's presence was proved, on a take's control
	// line: what its controller=user rests on.
	Proof *Proof `json:"proof,omitempty"`
	// UserMessage is the User's own message to the agent on the control
	// (or declined offer) line where they left one, by: "user": words they
	// wrote for the agent, not a value typed into a page; package control
	// caps it and removes control characters.
	UserMessage string `json:"user_message,omitempty"`
	// WebMCPTool names the page's WebMCP tool on a browser_webmcp_call
	// line (the page's own name for it, cleaned like page text).
	WebMCPTool string `json:"webmcp_tool,omitempty"`
	// File is the file of an [EventFile] line.
	File *File `json:"file,omitempty"`
}

// File is a file the User chose or downloaded in their turn: its name
// (the User's or the page's words), its size and the SHA-256 of its bytes
// (hex), so an operator can match it; never its bytes.
type File struct {
	Name   string `json:"name"`
	Size   int    `json:"size"`
	SHA256 string `json:"sha256"`
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

// Proof is how the User's presence was proved for a take: Kind is
// "passkey" (with the credential's id and the user-verified flag),
// "terminal", "identity" (with a hash of the subject) or "insecure-link"
// (--insecure-take-by-link).
type Proof struct {
	Kind         string `json:"kind"`
	Credential   string `json:"credential,omitempty"`
	UserVerified bool   `json:"user_verified,omitempty"`
	Subject      string `json:"subject,omitempty"`
}

// Mark names the marked step that refused an action, by element refs.
type Mark struct {
	Kind    spec.MarkKind `json:"kind"`
	Marked  string        `json:"marked"`  // ref of the element bearing the mark
	Touches string        `json:"touches"` // ref of the element the action would change
}

// clean replaces control characters (a page's title or URL, the model's
// reason) with spaces in every text field.
func (e *Entry) clean() {
	e.Event = Event(pagetext.Line(string(e.Event)))
	for _, f := range []*string{&e.Run, &e.Session, &e.Tool, &e.Ref, &e.Reason, &e.From, &e.To,
		&e.How, &e.By, &e.Offer, &e.Message, &e.UserMessage, &e.WebMCPTool} {
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
	if e.File != nil {
		f := *e.File
		f.Name, f.SHA256 = pagetext.Line(f.Name), pagetext.Line(f.SHA256)
		e.File = &f
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
