package ui

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/internal/pagetext"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TUIOptions configures a [TUI]. Control is required; every other field is
// optional.
type TUIOptions struct {
	// Control is the state the User acts on, through its User handle only.
	Control *control.Control
	// Audit is the runtime's audit log: the feed shows each entry recorded
	// after the TUI starts (the agent's actions, its refusals and why, offers
	// and changes of control). Nil means the feed shows control changes only.
	Audit *audit.Log
	// Company names the Company, e.g. "Demo Airline (airline.test)".
	Company string
	// Session describes the Session, e.g. "guest · declares browser-control v1".
	Session string
	// PageURL returns the URL the browser is on. It is polled twice a second.
	PageURL func() string
	// LiveURL is the live view's address with its token, shown when the User
	// asks for it. Show it only to the User: the TUI runs on their terminal.
	LiveURL string
	// OpenLive opens the live view in the User's web browser. Nil means the
	// TUI only shows the URL.
	OpenLive func(url string) error
	// Location is the time zone of the feed's times. Nil means time.Local.
	Location *time.Location
	// Timeout bounds one take, hand back or cancel. 0 means 15 s.
	Timeout time.Duration
	// QuitEnds says what quitting ends besides the terminal UI ("the
	// demo"). Empty means only the terminal UI closes: the User keeps
	// control, the live view stays.
	QuitEnds string
	// Actions are the words of the agent's actions, by tool name, for the
	// feed (gate's catalogue declares them). Nil: the feed says "acted".
	Actions map[string]ActionWords
	// Outcome reports whether the agent's task is over, with the agent's
	// last message. It is polled twice a second. Nil means never.
	Outcome func() (finished bool, message string)
	// Pair mints a pairing link for one of the User's devices (its
	// passkey then proves it's them when they take control in the live
	// view): the p key shows it, with a QR code, on this terminal only.
	// Nil means no p key.
	Pair func() (PairLink, error)
}

// feedMax is how many feed lines the TUI keeps.
const feedMax = 200

// TUI is the User's terminal UI, a bubbletea model: who holds the browser,
// the agent's offer, the keys to take control, hand it back or cancel, the
// live view's address, and a feed of what the agent does. Run it with
// [TUI.Run]; tests drive [TUI.Update] and read [TUI.View]. It acts only
// through [control.User], as the live view does.
type TUI struct {
	opts    TUIOptions
	width   int
	height  int
	status  control.Status
	page    string
	feed    []feedLine
	showURL bool // the live view's URL is shown
	confirm bool // asking whether to quit while the User holds control
	// writing is set while the User types their message to the agent
	// (m); draft is that message, sent with the next hand back or cancel.
	writing bool
	draft   string
	note    string // the result of the last key, for the User
	busy    bool   // a take, hand back or cancel is running
	quit    bool
	// pairing is the pairing link the p key showed, and its QR code.
	pairing *PairLink
	pairQR  string

	finished bool   // the agent's task is over (Outcome)
	lastWord string // the agent's last message

	// in delivers outside events (control events, audit entries) to
	// Update; it is set by Run. dropped counts audit entries the queue had
	// no room for.
	in      chan tea.Msg
	dropped *atomic.Int64
}

type feedLine struct {
	at        time.Time
	who, what string
	kind      string // "refused", "control", "offer", "action", "error", ""
}

// Messages the TUI handles besides keys and window sizes.
type (
	controlMsg struct{ e control.Event }
	auditMsg   struct{ e audit.Entry }
	opDoneMsg  struct {
		op  string
		err error
	}
	tickMsg   struct{}
	openedMsg struct{ err error }
)

// NewTUI returns the terminal UI's model at 80x24 before the first window
// size arrives.
func NewTUI(opts *TUIOptions) (*TUI, error) {
	if opts == nil || opts.Control == nil {
		return nil, errors.New("creating terminal ui: no control")
	}
	t := &TUI{opts: *opts, width: 80, height: 24, dropped: new(atomic.Int64)}
	if t.opts.Location == nil {
		t.opts.Location = time.Local
	}
	if t.opts.Timeout <= 0 {
		t.opts.Timeout = 15 * time.Second
	}
	t.status = t.opts.Control.Status()
	t.refreshPage()
	return t, nil
}

// Init starts the page poll and, under Run, the event feed.
func (t *TUI) Init() tea.Cmd {
	return tea.Batch(tick(), t.next())
}

func tick() tea.Cmd {
	return tea.Tick(500*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{} })
}

// next waits for the next outside event.
func (t *TUI) next() tea.Cmd {
	if t.in == nil {
		return nil
	}
	in := t.in
	return func() tea.Msg { return <-in }
}

// Update handles one message.
func (t *TUI) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch m := msg.(type) {
	case tea.WindowSizeMsg:
		t.width, t.height = m.Width, m.Height
	case tickMsg:
		t.refreshPage()
		return t, tick()
	case controlMsg:
		t.status = t.opts.Control.Status()
		if t.opts.Audit == nil {
			t.addFeed(feedFromEvent(m.e))
		}
		if t.status.Controller == spec.ControllerAgent {
			t.confirm = false
		}
		return t, t.next()
	case auditMsg:
		t.addFeed(feedFromAudit(m.e, t.opts.Actions))
		return t, t.next()
	case opDoneMsg:
		t.busy = false
		t.status = t.opts.Control.Status()
		t.note = opNote(m.op, m.err)
	case openedMsg:
		if m.err != nil {
			t.note = "Could not open a web browser; open the address above yourself."
		}
	case tea.KeyPressMsg:
		return t, t.key(m)
	}
	return t, nil
}

// key handles one key press.
func (t *TUI) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if t.writing {
		t.write(k)
		return nil
	}
	if t.confirm {
		switch s {
		case "y", "Y":
			t.quit = true
			return tea.Quit
		default:
			t.confirm = false
			t.note = "Not quitting; you still hold control."
		}
		return nil
	}
	switch s {
	case "t":
		return t.op("take")
	case "h":
		return t.op("hand_back")
	case "c":
		return t.op("cancel")
	case "m":
		t.writing = true
		t.note = ""
	case "l":
		t.showURL = !t.showURL
		if t.showURL && t.opts.OpenLive != nil && t.opts.LiveURL != "" {
			open, url := t.opts.OpenLive, t.opts.LiveURL
			return func() tea.Msg { return openedMsg{err: open(url)} }
		}
	case "p":
		t.pair()
	case "q", "ctrl+c":
		if t.opts.Control.Holder() == spec.ControllerUser && !t.finished {
			t.confirm = true
			return nil
		}
		t.quit = true
		return tea.Quit
	}
	return nil
}

// write edits the User's message to the agent: Enter keeps it for the
// next hand back or cancel, Esc drops it.
func (t *TUI) write(k tea.KeyPressMsg) {
	switch k.String() {
	case "enter":
		t.writing = false
		if t.draft != "" {
			t.note = "Your message goes to the agent with your hand back (h) or cancel (c)."
		}
	case "esc":
		t.writing, t.draft = false, ""
	case "backspace":
		if r := []rune(t.draft); len(r) > 0 {
			t.draft = string(r[:len(r)-1])
		}
	default:
		if k.Text != "" && len([]rune(t.draft)) < control.MaxUserMessage {
			t.draft += control.CleanUserMessage(k.Text)
			if k.Text == " " {
				t.draft += " "
			}
		}
	}
}

// op runs a take, hand back or cancel through the User handle, off the
// update loop.
func (t *TUI) op(name string) tea.Cmd {
	if t.busy {
		t.note = "Still working on your last key…"
		return nil
	}
	t.busy = true
	t.note = ""
	u, timeout := t.opts.Control.User(), t.opts.Timeout
	said := ""
	if name != "take" {
		said, t.draft = t.draft, ""
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		var err error
		switch name {
		case "take":
			err = u.Take(ctx)
		case "hand_back":
			err = u.HandBackSaying(ctx, said)
		case "cancel":
			err = u.CancelSaying(ctx, said)
		}
		return opDoneMsg{op: name, err: err}
	}
}

func opNote(op string, err error) string {
	switch {
	case errors.Is(err, control.ErrNotHeld):
		return "You do not hold control, so there is nothing to " + map[string]string{"hand_back": "hand back", "cancel": "cancel"}[op] + "."
	case err != nil && op == "take":
		return "Could not take control: the browser did not switch over. Try again."
	case err != nil:
		return "Control is back with the agent, but not every page heard of it."
	case op == "take":
		return "You have control. Act in the live view (its address is above); press h when done."
	case op == "hand_back":
		return "You handed control back: the agent continues."
	}
	return "Cancelled: control is back with the agent."
}

func (t *TUI) refreshPage() {
	if t.opts.PageURL != nil {
		t.page = t.opts.PageURL()
	}
	if t.opts.Outcome != nil {
		t.finished, t.lastWord = t.opts.Outcome()
	}
}

// Outcome is the end of the task in words, for the User after the TUI
// closes: "" while the agent's task is not over.
func (t *TUI) Outcome() string {
	if !t.finished {
		return ""
	}
	if t.lastWord == "" {
		return "The agent finished."
	}
	return "The agent finished: " + pagetext.Line(t.lastWord)
}

func (t *TUI) addFeed(l feedLine) {
	t.feed = append(t.feed, l)
	if len(t.feed) > feedMax {
		t.feed = append(t.feed[:0], t.feed[len(t.feed)-feedMax:]...)
	}
}

// refusalWhy explains a refusal's reason code to the User.
var refusalWhy = map[spec.Reason]string{
	spec.ReasonUserStep:       "the Company leaves this step to you",
	spec.ReasonUserHasControl: "you hold control",
	spec.ReasonStaleRef:       "the page changed since the agent last looked",
	spec.ReasonNoSuchRef:      "no such element",
	spec.ReasonObscured:       "something covers the element",
}

// ActionWords tell the User what an agent's action did, with no tool
// name or element ref: Did tells the action ("clicked"), Refused names it
// in a refusal ("its click was refused"). Each action declares its own
// (gate's catalogue); [TUIOptions.Actions] brings them here.
type ActionWords struct{ Did, Refused string }

// offerWords are the words of the offer of control, the one tool whose
// words are the User's side's own (it is not a browser action).
var offerWords = ActionWords{"asked you to take control", "request for you"}

// humanWhat is an audit entry in a person's words: the audit log's own
// description, except that the agent's actions, refusals and offers are
// told without tool names, offer ids or element refs ("e7" means nothing
// to the User).
func humanWhat(e audit.Entry, actions map[string]ActionWords) (who, what string) {
	who, what = audit.Describe(e)
	words, ok := actions[e.Tool]
	if e.Tool == spec.ToolRequestUserControl {
		words, ok = offerWords, true
	}
	if !ok || words.Did == "" {
		words = ActionWords{"acted", "action"}
	}
	switch {
	case e.Event == audit.EventAction:
		what = words.Did
		if e.URL != "" {
			what += " on " + pagetext.URL(e.URL)
		}
		if e.To != "" && e.To != e.URL {
			what += "; it led to " + pagetext.URL(e.To)
		}
	case e.Event == audit.EventNavigate && e.By != audit.ByUser:
		what = "opened " + pagetext.URL(e.URL)
	case e.Event == audit.EventDenied:
		what = "its " + words.Refused + " was refused"
	case e.Event == audit.EventOffer || e.Event == audit.EventControl:
		if k, ok := e.ControlKind(); ok {
			what = controlWords(k, e.Reason)
		}
	}
	return who, what
}

func feedFromAudit(e audit.Entry, actions map[string]ActionWords) feedLine {
	who, what := humanWhat(e, actions)
	l := feedLine{at: e.Time, who: who, what: what}
	switch e.Event {
	case audit.EventDenied:
		l.kind = "refused"
		if why := refusalWhy[spec.Reason(e.Reason)]; why != "" {
			l.what += ": " + why
		}
	case audit.EventControl:
		l.kind = "control"
	case audit.EventOffer:
		l.kind = "offer"
	case audit.EventAction, audit.EventNavigate:
		l.kind = "action"
	case audit.EventError:
		l.kind = "error"
	}
	return l
}

// Quitting reports whether the User chose to quit.
func (t *TUI) Quitting() bool { return t.quit }

// String is the TUI's name for logs.
func (t *TUI) String() string { return fmt.Sprintf("tui %dx%d", t.width, t.height) }
