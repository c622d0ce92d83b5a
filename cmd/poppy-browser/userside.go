package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/mcpserver"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/ui"
)

// startUserSide starts what runs beside the MCP tools: control
// notifications to MCP clients and, with tui, the User's terminal UI on
// /dev/tty. With endOnQuit, the User quitting the terminal UI ends the
// returned context (the demo ends); otherwise only the terminal UI closes
// and the live view stays. Without a terminal it says so on msgs and goes
// on. stop cancels and waits for both.
func startUserSide(ctx context.Context, sv *supervisor.Supervisor, srv *mcp.Server, tui, endOnQuit bool, msgs io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { mcpserver.NotifyControl(ctx, srv, sv.Control()) })
	if tui {
		wg.Go(func() {
			err := sv.RunTUI(ctx)
			switch {
			case errors.Is(err, ui.ErrNoTerminal):
				fmt.Fprintf(msgs, "no terminal, so no terminal UI (%v); the User can use the live view: %s\n", err, sv.LiveURL())
			case err != nil:
				fmt.Fprintf(msgs, "the terminal UI stopped: %v; the User can use the live view: %s\n", err, sv.LiveURL())
			case endOnQuit:
				cancel()
			}
		})
	}
	return ctx, func() {
		cancel()
		wg.Wait()
	}
}
