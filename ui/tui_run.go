package ui

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/control"
)

// ErrNoTerminal is returned by [OpenTerminal] when the process has no
// terminal to show the TUI on.
var ErrNoTerminal = errors.New("no terminal")

// OpenTerminal opens the process's controlling terminal (/dev/tty), so the
// TUI can run while stdin and stdout carry something else (the MCP stdio
// transport). It fails with [ErrNoTerminal] when there is none. The caller
// closes both files.
func OpenTerminal() (in, out *os.File, err error) {
	in, out, err = tea.OpenTTY()
	if err != nil {
		return nil, nil, fmt.Errorf("opening the terminal: %w: %w", ErrNoTerminal, err)
	}
	if !term.IsTerminal(out.Fd()) {
		in.Close()
		if out != in {
			out.Close()
		}
		return nil, nil, fmt.Errorf("opening the terminal: %w", ErrNoTerminal)
	}
	return in, out, nil
}

// IsTerminal reports whether r is a terminal (the demo plays the User
// itself when stdin is not one).
func IsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// AskOnTerminal returns an agent's question hook that shows the question
// through say and reads the User's answer, one line, from in. A read
// error before any text ends the question. The answer is the User's text:
// it goes to the agent, never to a log.
func AskOnTerminal(in io.Reader, say func(format string, args ...any)) func(ctx context.Context, q string) (string, error) {
	r := bufio.NewReader(in)
	return func(ctx context.Context, q string) (string, error) {
		say("agent asks: %s", q)
		line, err := r.ReadString('\n')
		if err != nil && line == "" {
			return "", err
		}
		return strings.TrimSpace(line), nil
	}
}

// Run shows the TUI on out, reading keys from in, until the User quits
// (nil) or ctx ends (nil as well). It feeds the TUI with every later
// control event and audit entry; an audit entry that finds the TUI's queue
// full is counted and shown as not shown, never blocking the runtime.
// Run may be called once.
func (t *TUI) Run(ctx context.Context, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t.in = make(chan tea.Msg, 256)
	stopEvents := control.Watch(ctx, t.opts.Control, func(e control.Event) {
		select {
		case t.in <- controlMsg{e}:
		case <-ctx.Done():
		}
	})
	defer stopEvents()
	stopAudit := t.opts.Audit.Observe(func(e audit.Entry) {
		select {
		case t.in <- auditMsg{e}:
		default:
			t.dropped.Add(1)
		}
	})
	defer stopAudit()
	defer cancel() // before stopEvents: a send to t.in gives up
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out)}
	if f, ok := out.(*os.File); !ok || !term.IsTerminal(f.Fd()) {
		// Not a terminal (a test's pipe): no size to ask for.
		opts = append(opts, tea.WithWindowSize(t.width, t.height))
	}
	p := tea.NewProgram(t, opts...)
	_, err := p.Run()
	if err != nil && errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	if err != nil {
		return fmt.Errorf("terminal ui: %w", err)
	}
	return nil
}
