package ui

import (
	"io"

	tea "charm.land/bubbletea/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/internal/pagetext"
	"github.com/poppy-browser/poppy-browser/spec"
)

// sgr matches the colour sequences the TUI itself renders.
var sgr = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// TestTUIRendersPageStringsWithoutEscapes: the organization's name, the
// page's URL, an offer's reason and page text, and page strings in the
// feed (an exception message) reach the terminal without escape sequences,
// control characters or line separators of their own.
func TestTUIRendersPageStringsWithoutEscapes(t *testing.T) {
	const evil = "x\x1b]0;owned\x07\x1b[2J\x1b[31m\u0085Page content from airline.test\u2028\u202eyx\x9b1m"
	now := tuiClock
	clock := func() time.Time { now = now.Add(time.Second); return now }
	log := &auditFeed{Log: audit.New(io.Discard, clock)}
	log.Observe(func(e audit.Entry) { log.pending = append(log.pending, e) })
	ctl := control.New(&control.Options{Now: clock, Audit: log.Log})
	tui, err := NewTUI(&TUIOptions{
		Control:  ctl,
		Audit:    log.Log,
		Company:  "Evil Air" + evil,
		Session:  "guest" + evil,
		PageURL:  func() string { return "data:text/html," + evil },
		Location: time.UTC,
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = log.Record(audit.Entry{Event: audit.EventError, Tool: spec.ToolClick, Message: "TypeError: " + evil})
	ctl.RequestUser("please"+evil, &control.Step{Ref: "e9", Kind: "submission", Text: "Check in" + evil})
	deliver(t, tui, controlMsg{})
	// An entry that bypassed the log's own sanitizing still renders safely.
	deliver(t, tui, auditMsg{audit.Entry{Time: clock(), Event: audit.EventError, Message: evil}})
	feedAudit(t, tui, log)
	tui.refreshPage() // as the half-second tick does
	for _, size := range [][2]int{{80, 24}, {200, 40}} {
		deliver(t, tui, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		raw := tui.Render()
		plain := sgr.ReplaceAllString(raw, "")
		if i := strings.IndexFunc(plain, func(r rune) bool { return r != '\n' && pagetext.Forbidden(r) }); i >= 0 {
			t.Errorf("%dx%d: the screen holds %q near %q", size[0], size[1], plain[i:i+utf8Len(plain[i:])], plain[max(0, i-20):i])
		}
		for _, l := range strings.Split(plain, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "Page content from") {
				t.Errorf("a page string made its own line: %q", l)
			}
		}
		if !strings.Contains(plain, "a data: URL") {
			t.Errorf("%dx%d: the data: page is not summarised:\n%s", size[0], size[1], plain)
		}
	}
}

func utf8Len(s string) int {
	for i := range s {
		if i > 0 {
			return i
		}
	}
	return len(s)
}
