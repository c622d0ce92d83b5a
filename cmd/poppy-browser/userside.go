package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/ui"
)

// startUserSide starts, with tui, the User's terminal UI on /dev/tty
// beside the agent. With endOnQuit, the User quitting the terminal UI ends
// the returned context (the demo ends); otherwise only the terminal UI
// closes and the live view stays. stop cancels and waits for it.
func startUserSide(ctx context.Context, sv *supervisor.Supervisor, tui, endOnQuit bool, msgs io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	if tui {
		wg.Go(func() {
			if showTUI(ctx, sv.RunTUI, sv.LiveURL(), msgs) && endOnQuit {
				cancel()
			}
		})
	}
	return ctx, func() {
		cancel()
		wg.Wait()
	}
}

// showTUI runs the terminal UI until the User quits (true) or ctx ends.
// Without a terminal it says so on msgs, with the live view instead.
func showTUI(ctx context.Context, run func(context.Context) error, liveURL string, msgs io.Writer) (quit bool) {
	err := run(ctx)
	switch {
	case errors.Is(err, ui.ErrNoTerminal):
		fmt.Fprintf(msgs, "no terminal, so no terminal UI (%v); the User can use the live view: %s\n", err, liveURL)
	case err != nil:
		fmt.Fprintf(msgs, "the terminal UI stopped: %v; the User can use the live view: %s\n", err, liveURL)
	default:
		return ctx.Err() == nil
	}
	return false
}
