package ui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/internal/golden"
	"github.com/poppy-browser/poppy-browser/spec"
)

// catalogueWords are the words gate's actions declare for the User, as
// the supervisor gives them to the TUI.
func catalogueWords() map[string]ActionWords {
	out := map[string]ActionWords{}
	for _, e := range gate.Catalogue() {
		out[e.Tool] = ActionWords(e.User)
	}
	return out
}

var tuiClock = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)

// auditFeed records what the TUI's audit log writes, for feedAudit.
type auditFeed struct {
	*audit.Log
	pending []audit.Entry
}

func newTestTUI(t *testing.T) (*TUI, *control.Control, *auditFeed) {
	t.Helper()
	now := tuiClock
	clock := func() time.Time { now = now.Add(time.Second); return now }
	log := &auditFeed{Log: audit.New(io.Discard, clock)}
	log.Observe(func(e audit.Entry) { log.pending = append(log.pending, e) })
	ctl := control.New(&control.Options{Now: clock, Audit: log.Log})
	tui, err := NewTUI(&TUIOptions{
		Control:  ctl,
		Audit:    log.Log,
		Company:  "Demo Airline (airline.test)",
		Session:  "guest · declares browser-control v1",
		PageURL:  func() string { return "https://airline.test/bookings/bkg_4Rt9/check-in" },
		LiveURL:  "http://127.0.0.1:40123/live?token=TOKEN",
		Location: time.UTC,
		Actions:  catalogueWords(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tui, ctl, log
}

// send runs msg through Update and then every command it returns that
// completes at once (control operations; not ticks or the feed).
func deliver(t *testing.T, tui *TUI, msg tea.Msg) tea.Cmd {
	t.Helper()
	_, cmd := tui.Update(msg)
	if cmd == nil {
		return nil
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	select {
	case m := <-done:
		if _, ok := m.(opDoneMsg); ok {
			return deliver(t, tui, m)
		}
		if _, ok := m.(tea.QuitMsg); ok {
			return tea.Quit
		}
	case <-time.After(5 * time.Second):
		// Not an operation: a tick or the feed, which wait by design.
	}
	return cmd
}

func press(t *testing.T, tui *TUI, key string) tea.Cmd {
	t.Helper()
	k := tea.KeyPressMsg{Code: rune(key[0]), Text: key}
	if key == "ctrl+c" {
		k = tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	return deliver(t, tui, k)
}

// feedAudit delivers the audit entries recorded since the last feed, as
// Run does.
func feedAudit(t *testing.T, tui *TUI, log *auditFeed) {
	for _, e := range log.pending {
		deliver(t, tui, auditMsg{e})
	}
	log.pending = nil
}

// screen is the rendered TUI without colour, checked for its size.
func screen(t *testing.T, tui *TUI, w, h int) string {
	t.Helper()
	deliver(t, tui, tea.WindowSizeMsg{Width: w, Height: h})
	s := ansi.Strip(tui.Render())
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Errorf("%dx%d: %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("%dx%d: line %d is %d wide: %q", w, h, i+1, n, l)
		}
	}
	return s
}

// TestTUIScreens renders the User's screens at 80x24 and 120x32, without
// colour, against goldens: the agent at work with refusals in the feed, an
// offer with the Company's own words, the User in control with the live
// view's address, and the question before quitting.
func TestTUIScreens(t *testing.T) {
	tui, ctl, log := newTestTUI(t)
	_ = log.Record(audit.Entry{Event: audit.EventJoin, URL: "https://airline.test/bookings/bkg_4Rt9"})
	_ = log.Record(audit.Entry{Event: audit.EventNavigate, Tool: spec.ToolNavigate, URL: "https://airline.test/bookings/bkg_4Rt9/check-in"})
	_ = log.Record(audit.Entry{Event: audit.EventAction, Tool: spec.ToolSelect, Ref: "e4", URL: "https://airline.test/bookings/bkg_4Rt9/check-in"})
	_ = log.Record(audit.Entry{Event: audit.EventDenied, Tool: spec.ToolClick, Ref: "e9", Reason: "user_step",
		Mark: &audit.Mark{Kind: spec.Submission, Marked: "e3", Touches: "e9"}})
	feedAudit(t, tui, log)
	golden.Check(t, filepath.Join("testdata", "tui", "agent_80x24"+".golden"), []byte(screen(t, tui, 80, 24)))

	ctl.RequestUser("The airline asks you to check in yourself", &control.Step{Ref: "e9", Kind: "submission", Text: "Check in"})
	deliver(t, tui, controlMsg{})
	feedAudit(t, tui, log)
	golden.Check(t, filepath.Join("testdata", "tui", "offer_80x24"+".golden"), []byte(screen(t, tui, 80, 24)))
	golden.Check(t, filepath.Join("testdata", "tui", "offer_120x32"+".golden"), []byte(screen(t, tui, 120, 32)))

	press(t, tui, "t")
	_ = log.Record(audit.Entry{Event: audit.EventDenied, Tool: spec.ToolSnapshot, Reason: "user_has_control"})
	feedAudit(t, tui, log)
	press(t, tui, "l")
	golden.Check(t, filepath.Join("testdata", "tui", "user_80x24"+".golden"), []byte(screen(t, tui, 80, 24)))
	press(t, tui, "q")
	golden.Check(t, filepath.Join("testdata", "tui", "quit_80x24"+".golden"), []byte(screen(t, tui, 80, 24)))
}

// TestTUIKeys: the keys drive the User's control operations, the same ones
// the live view's take, hand_back and cancel messages drive.
func TestTUIKeys(t *testing.T) {
	tui, ctl, _ := newTestTUI(t)
	step := func(key string, want spec.Controller, epoch uint64, note string) {
		t.Helper()
		press(t, tui, key)
		st := ctl.Status()
		if st.Controller != want || st.Epoch != epoch {
			t.Fatalf("after %q: %+v, want %s at epoch %d", key, st, want, epoch)
		}
		if !strings.Contains(tui.note, note) {
			t.Errorf("after %q the TUI says %q, want %q", key, tui.note, note)
		}
	}
	step("h", spec.ControllerAgent, 0, "You do not hold control")
	step("t", spec.ControllerUser, 0, "You have control")
	step("t", spec.ControllerUser, 0, "You have control")
	step("h", spec.ControllerAgent, 1, "handed control back")
	ctl.RequestUser("check in", nil)
	step("c", spec.ControllerAgent, 1, "Cancelled")
	if st := ctl.Status(); st.Offer != nil || st.Declined == nil || st.LastReturn == nil || st.LastReturn.How != control.HowHandedBack {
		t.Errorf("cancel did not decline the offer: %+v", st)
	}
	step("t", spec.ControllerUser, 1, "You have control")
	step("c", spec.ControllerAgent, 2, "Cancelled")

	// Quitting while the User holds control asks first.
	step("t", spec.ControllerUser, 2, "You have control")
	if cmd := press(t, tui, "q"); cmd != nil || !tui.confirm {
		t.Fatal("q while the User holds control did not ask first")
	}
	press(t, tui, "n")
	if tui.confirm || tui.Quitting() || ctl.Holder() != spec.ControllerUser {
		t.Fatal("answering n did not keep the TUI and the User's control")
	}
	press(t, tui, "ctrl+c")
	if !tui.confirm {
		t.Fatal("ctrl+c while the User holds control did not ask first")
	}
	if cmd := press(t, tui, "y"); cmd == nil || !tui.Quitting() {
		t.Fatal("y did not quit")
	}
	if ctl.Holder() != spec.ControllerUser {
		t.Error("quitting ended the User's control; only hand back or cancel does")
	}

	// While the agent holds control, q quits at once.
	tui2, _, _ := newTestTUI(t)
	if cmd := press(t, tui2, "q"); cmd == nil || !tui2.Quitting() {
		t.Fatal("q did not quit")
	}
}

// TestTUIRun runs the real bubbletea program on a pipe: keys typed reach
// control, control events reach the screen, q ends it.
func TestTUIRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	tui, ctl, _ := newTestTUI(t)
	inR, inW := io.Pipe()
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- tui.Run(ctx, inR, out) }()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for !cond() {
			select {
			case <-ctx.Done():
				t.Fatalf("timed out waiting until %s; screen:\n%q", what, out.String())
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	waitFor("the first screen", func() bool { return strings.Contains(out.String(), "Nothing yet.") })
	ctl.RequestUser("The airline asks you to check in yourself", nil)
	waitFor("the offer is on screen", func() bool { return strings.Contains(ansi.Strip(out.String()), "check in yourself") })
	io.WriteString(inW, "t")
	waitFor("the User holds control", func() bool { return ctl.Holder() == spec.ControllerUser })
	io.WriteString(inW, "h")
	waitFor("the agent holds control", func() bool { return ctl.Holder() == spec.ControllerAgent })
	io.WriteString(inW, "q")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("q did not end the TUI")
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestAskOnTerminal: the agent's question is shown, the User's line is the
// answer without its newline, and a closed input ends the question.
func TestAskOnTerminal(t *testing.T) {
	var shown []string
	say := func(format string, args ...any) { shown = append(shown, fmt.Sprintf(format, args...)) }
	ask := AskOnTerminal(strings.NewReader("  aisle please \n"), say)
	got, err := ask(t.Context(), "which seat?")
	if err != nil || got != "aisle please" {
		t.Errorf("answer %q, %v; want %q", got, err, "aisle please")
	}
	if len(shown) != 1 || shown[0] != "agent asks: which seat?" {
		t.Errorf("shown %q", shown)
	}
	if _, err := ask(t.Context(), "anything else?"); err == nil {
		t.Error("a closed input gave an answer")
	}
	if IsTerminal(strings.NewReader("")) {
		t.Error("a strings.Reader is a terminal")
	}
}

// TestTUIMessageToTheAgent: m, typed words and Enter keep a message that
// goes with the hand back: the agent's status carries it; the screen
// shows it while it is written.
func TestTUIMessageToTheAgent(t *testing.T) {
	tui, ctl, _ := newTestTUI(t)
	press(t, tui, "t")
	press(t, tui, "m")
	for _, r := range "seat 14C" {
		press(t, tui, string(r))
	}
	deliver(t, tui, tea.KeyPressMsg{Code: tea.KeyBackspace})
	press(t, tui, "D")
	if s := screen(t, tui, 80, 24); !strings.Contains(s, "Your message to the agent: seat 14D") {
		t.Errorf("the screen does not show the message being written:\n%s", s)
	}
	deliver(t, tui, tea.KeyPressMsg{Code: tea.KeyEnter})
	if ctl.Holder() != spec.ControllerUser {
		t.Fatal("typing the message changed the holder")
	}
	press(t, tui, "h")
	if st := ctl.Status(); st.Controller != spec.ControllerAgent || st.UserMessage != "seat 14D" {
		t.Fatalf("after hand back: %s, message %q, want agent and \"seat 14D\"", st.Controller, st.UserMessage)
	}
}
