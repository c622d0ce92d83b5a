package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// ShowTUI runs the terminal UI (run, such as a Supervisor's RunTUI) beside
// whatever else the process does, until the User quits it (true) or ctx
// ends. Without a terminal, or when it stops, it says so on msgs, naming
// the live view at liveURL instead: msgs is the User's channel.
func ShowTUI(ctx context.Context, run func(context.Context) error, liveURL string, msgs io.Writer) (quit bool) {
	err := run(ctx)
	switch {
	case errors.Is(err, ErrNoTerminal):
		fmt.Fprintf(msgs, "no terminal, so no terminal UI (%v); the User can use the live view: %s\n", err, liveURL)
	case err != nil:
		fmt.Fprintf(msgs, "the terminal UI stopped: %v; the User can use the live view: %s\n", err, liveURL)
	default:
		return ctx.Err() == nil
	}
	return false
}
