package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/internal/pagetext"
	"github.com/poppy-browser/poppy-browser/spec"
)

// Colours: the agent in blue, the User in green, offers in amber, refusals
// in red. Every colour has words beside it, for terminals without colour.
var (
	agentColor   = lipgloss.Color("#2563eb")
	userColor    = lipgloss.Color("#16a34a")
	offerColor   = lipgloss.Color("#d97706")
	refusedColor = lipgloss.Color("#dc2626")
	dimColor     = lipgloss.Color("#71717a")
	white        = lipgloss.Color("#ffffff")
)

// View renders the TUI. It only renders: state changes happen in Update.
func (t *TUI) View() tea.View {
	v := tea.NewView(t.Render())
	v.AltScreen = true
	v.WindowTitle = "poppy-browser: " + t.holderWords()
	return v
}

// Render is the screen as a string of t.width columns and at most t.height
// lines, with colour escapes (ansi.Strip removes them).
func (t *TUI) Render() string {
	w := max(t.width, 20)
	bold := lipgloss.NewStyle().Bold(true)
	label := lipgloss.NewStyle().Foreground(dimColor)
	var top []string
	top = append(top, lipgloss.NewStyle().Bold(true).Reverse(true).Render(pad(" poppy-browser · the User's side of the Personal Agent's browser", w)))
	field := func(name, value string) {
		top = append(top, label.Render(fmt.Sprintf("%-8s ", name))+value)
	}
	// The Company's name, the Session and the page come from the network
	// and the page: one safe line each (package pagetext).
	field("Company", orNone(pagetext.Line(t.opts.Company), "(not joined)"))
	field("Session", orNone(pagetext.Line(t.opts.Session), "(none)"))
	page := ""
	if t.page != "" {
		page = pagetext.URL(t.page)
	}
	field("Page", orNone(page, "(no page)"))
	badge := lipgloss.NewStyle().Bold(true).Foreground(white).Padding(0, 1)
	if t.status.Controller == spec.ControllerUser {
		field("Control", badge.Background(userColor).Render("YOU")+" "+bold.Foreground(userColor).Render("You hold control.")+
			" The agent can do nothing in the browser until you hand back or cancel.")
	} else {
		field("Control", badge.Background(agentColor).Render("AGENT")+" "+bold.Foreground(agentColor).Render("The agent holds the browser.")+
			" Your input is not passed to the page.")
	}
	if story := t.story(); story != "" {
		field("Now", bold.Render(story))
	}
	field("Live", orNone(t.opts.LiveURL, "(the live view is not running)")+label.Render("  (for you only: open it on your phone or here)"))

	var mid []string
	if o := t.status.Offer; o != nil {
		mid = append(mid, t.offerBox(w)...)
	}
	if t.confirm {
		mid = append(mid, lipgloss.NewStyle().Bold(true).Foreground(refusedColor).Render(t.quitPrompt()))
	}
	if t.writing || t.draft != "" {
		line := label.Render("Your message to the agent: ") + t.draft
		if t.writing {
			line += "▏ (Enter to keep, Esc to drop)"
		}
		mid = append(mid, line)
	}
	mid = append(mid, t.pairLines()...)
	if t.note != "" {
		mid = append(mid, t.note)
	}

	first := keyHelp("t", "take")
	if t.status.Controller == spec.ControllerUser {
		first = keyHelp("m", "message") // the User holds control: no take to press
	}
	help := label.Render("keys: ") + first + "  " + keyHelp("h", "hand back") + "  " +
		keyHelp("c", "cancel your turn") + "  " + keyHelp("l", "live view") + "  " + keyHelp("q", "quit")
	if t.opts.Pair != nil {
		help += "  " + keyHelp("p", "pair a device")
	}

	// Lines wrap to the width first, so the feed gets what is left.
	head := wrapLines(append(top, ""), w)
	mid = wrapLines(mid, w)
	footer := wrapLines([]string{help}, w)
	room := t.height - len(head) - len(mid) - len(footer) - 1
	lines := append(head, mid...)
	lines = append(lines, bold.Render("What the agent does"))
	lines = append(lines, t.feedLines(w, room)...)
	for len(lines) < t.height-len(footer) {
		lines = append(lines, "")
	}
	lines = append(lines, footer...)
	if len(lines) > t.height {
		lines = lines[:t.height]
	}
	return strings.Join(lines, "\n")
}

// story is what happened last, in words: the end of the task, or the
// User's last hand back, cancel or decline.
func (t *TUI) story() string {
	if out := t.Outcome(); out != "" {
		return out
	}
	if t.status.Offer != nil || t.status.Controller == spec.ControllerUser {
		return ""
	}
	r, d := t.status.LastReturn, t.status.Declined
	switch {
	case r != nil && (d == nil || !d.At.After(r.At)) && r.How == control.HowHandedBack:
		return "You handed back: the agent continues."
	case r != nil && (d == nil || !d.At.After(r.At)):
		return "You cancelled: control went back to the agent."
	case d != nil:
		return "You declined: the agent keeps control."
	}
	return ""
}

// quitPrompt asks before quitting while the User holds control, saying
// what quitting does.
func (t *TUI) quitPrompt() string {
	if t.opts.QuitEnds != "" {
		return "You hold control of the browser. Quitting ends " + t.opts.QuitEnds + ". Quit anyway? y = quit, any other key = stay"
	}
	return "You hold control of the browser. Quitting closes only this terminal UI: you keep control until you hand back in the live view. Quit anyway? y = quit, any other key = stay"
}

func (t *TUI) holderWords() string {
	if t.status.Controller == spec.ControllerUser {
		return "you hold control"
	}
	return "the agent holds the browser"
}

// offerBox shows the agent's request and the page's own words, labelled as
// the Company's.
func (t *TUI) offerBox(w int) []string {
	o := t.status.Offer
	amber := lipgloss.NewStyle().Bold(true).Foreground(offerColor)
	label := lipgloss.NewStyle().Foreground(dimColor)
	var b []string
	if t.status.Controller == spec.ControllerUser {
		b = append(b, amber.Render("Your step. When you are done, hand back (h); to give up, cancel (c)."))
	} else {
		b = append(b, amber.Render("The agent asks you to take a step in the browser."))
	}
	b = append(b, label.Render("From the agent: ")+pagetext.Line(o.Reason))
	if s := o.Step; s != nil && s.Text != "" {
		// The step by its words on the page, never by the agent's ref.
		text := fmt.Sprintf("%q", pagetext.Line(s.Text))
		parts := []string{"the Company's words, not the agent's"}
		if w := markWords(s.Kind); w != "" {
			parts = append([]string{w}, parts...)
		}
		b = append(b, label.Render("The step on the Company's page: ")+text+label.Render(" ("+strings.Join(parts, "; ")+")"))
	}
	if t.status.Controller != spec.ControllerUser {
		b = append(b, keyHelp("t", "take control")+"   "+keyHelp("c", "decline")+"   "+keyHelp("l", "show the live view"))
	}
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(offerColor).Padding(0, 1).Width(w)
	return strings.Split(box.Render(strings.Join(b, "\n")), "\n")
}

func markWords(kind string) string {
	switch kind {
	case string(spec.Submission):
		return "a form the Company leaves you to submit"
	case string(spec.Interaction):
		return "a control the Company leaves to you"
	}
	return ""
}

// feedLines are the newest feed entries that fit in n lines, oldest first.
func (t *TUI) feedLines(w, n int) []string {
	if n <= 0 {
		return nil
	}
	var out []string
	if d := t.dropped.Load(); d > 0 {
		out = append(out, lipgloss.NewStyle().Foreground(dimColor).Render(fmt.Sprintf("(%d earlier entries not shown; see the audit log)", d)))
	}
	if len(t.feed) == 0 {
		out = append(out, lipgloss.NewStyle().Foreground(dimColor).Render("Nothing yet."))
	}
	start := max(0, len(t.feed)-(n-len(out)))
	for _, l := range t.feed[start:] {
		st := lipgloss.NewStyle()
		switch l.kind {
		case "refused", "error":
			st = st.Foreground(refusedColor)
		case "control":
			st = st.Bold(true).Foreground(userColor)
			if strings.Contains(l.what, "back") || strings.Contains(l.what, "cancelled") {
				st = st.Foreground(agentColor)
			}
		case "offer":
			st = st.Foreground(offerColor)
		}
		// Long lines wrap under the text, past the time and who.
		head := fmt.Sprintf("%s %-7s ", l.at.In(t.opts.Location).Format("15:04:05"), pagetext.Line(l.who))
		for i, part := range strings.Split(ansi.Wrap(pagetext.Line(l.what), max(w-feedIndent, 10), " "), "\n") {
			if i == 0 {
				part = head + part
			} else {
				part = strings.Repeat(" ", feedIndent) + part
			}
			out = append(out, st.Render(part))
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
		// Never start with the tail of a wrapped entry.
		for len(out) > 1 && strings.HasPrefix(ansi.Strip(out[0]), " ") {
			out = out[1:]
		}
	}
	return out
}

// feedIndent is where a feed line's text starts, past "15:04:05 agent   ".
const feedIndent = 17

func keyHelp(k, what string) string {
	return lipgloss.NewStyle().Bold(true).Render("["+k+"]") + " " + what
}

// wrapLines wraps each line to w columns.
func wrapLines(lines []string, w int) []string {
	var out []string
	for _, l := range lines {
		out = append(out, strings.Split(ansi.Wrap(l, w, " "), "\n")...)
	}
	return out
}

func pad(s string, w int) string {
	s = ansi.Truncate(s, w, "…")
	if n := w - ansi.StringWidth(s); n > 0 {
		s += strings.Repeat(" ", n)
	}
	return s
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
