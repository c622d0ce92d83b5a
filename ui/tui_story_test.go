package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/poppy-browser/poppy-browser/control"
)

// TestTUITellsTheStory: the TUI says what happened last in plain words,
// and the end of the task with the agent's words; its quit prompt says
// what quitting ends.
func TestTUITellsTheStory(t *testing.T) {
	ctx := testContext(t)
	tui, ctl, _ := newTestTUI(t)
	screen := func() string { tui.status = ctl.Status(); return ansi.Strip(tui.Render()) }

	ctl.RequestUser("please check in", &control.Step{Ref: "e9", Kind: "submission", Text: "Check in"})
	if s := screen(); strings.Contains(s, "e9") {
		t.Errorf("the screen shows the ref e9 to a person:\n%s", s)
	}
	if err := ctl.User().Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if s := screen(); !strings.Contains(s, "You declined: the agent keeps control.") {
		t.Errorf("after a decline the screen lacks it:\n%s", s)
	}
	if err := ctl.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	tui.opts.QuitEnds = "the demo"
	tui.confirm = true
	if s := strings.Join(strings.Fields(screen()), " "); !strings.Contains(s, "Quitting ends the demo.") {
		t.Errorf("the quit prompt does not say what quitting ends:\n%s", s)
	}
	tui.confirm = false
	if err := ctl.User().HandBack(ctx); err != nil {
		t.Fatal(err)
	}
	if s := screen(); !strings.Contains(s, "You handed back: the agent continues.") {
		t.Errorf("after hand back the screen lacks it:\n%s", s)
	}
	tui.opts.Outcome = func() (bool, string) { return true, "You are checked in: seat aisle." }
	tui.refreshPage()
	if s := strings.Join(strings.Fields(screen()), " "); !strings.Contains(s, "The agent finished: You are checked in: seat aisle.") {
		t.Errorf("the end of the task is not on screen:\n%s", s)
	}
	if got := tui.Outcome(); got != "The agent finished: You are checked in: seat aisle." {
		t.Errorf("Outcome() = %q", got)
	}
}
