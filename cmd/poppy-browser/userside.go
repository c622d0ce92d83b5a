package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/mcpserver"
	"github.com/poppy-browser/poppy-browser/ui"
)

// startUserSide starts what runs beside the MCP tools: control
// notifications to MCP clients and, with tui, the User's terminal UI on
// /dev/tty. With endOnQuit, the User quitting the terminal UI ends the
// returned context (the demo ends); otherwise only the terminal UI closes
// and the live view stays. Without a terminal it says so on msgs and goes
// on. stop cancels and waits for both.
func startUserSide(ctx context.Context, rt *runtimeParts, srv *mcp.Server, cfg *config, tui, endOnQuit bool, msgs io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { mcpserver.NotifyControl(ctx, srv, rt.control) })
	if tui {
		wg.Go(func() {
			err := runTUI(ctx, rt, cfg)
			switch {
			case errors.Is(err, ui.ErrNoTerminal):
				fmt.Fprintf(msgs, "no terminal, so no terminal UI (%v); the User can use the live view: %s\n", err, rt.live.URL())
			case err != nil:
				fmt.Fprintf(msgs, "the terminal UI stopped: %v; the User can use the live view: %s\n", err, rt.live.URL())
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

// runTUI shows the terminal UI on /dev/tty until the User quits or ctx ends.
func runTUI(ctx context.Context, rt *runtimeParts, cfg *config) error {
	in, out, err := ui.OpenTerminal()
	if err != nil {
		return err
	}
	defer in.Close()
	defer out.Close()
	tui, err := ui.NewTUI(tuiOptions(rt, cfg))
	if err != nil {
		return err
	}
	return tui.Run(ctx, in, out)
}

// tuiOptions describes the runtime to the User.
func tuiOptions(rt *runtimeParts, cfg *config) *ui.TUIOptions {
	company := rt.company.Domain
	if rt.company.Name != "" {
		company = rt.company.Name + " (" + rt.company.Domain + ")"
	}
	var exts []string
	for _, e := range rt.company.Extensions {
		exts = append(exts, e.Name+" v"+e.Version)
	}
	session := cfg.session
	if session == "" {
		session = "joined"
	}
	if cfg.noJoin {
		session = "no Session (--no-join): the website is treated as the Company's"
	}
	session += " · declares " + strings.Join(exts, ", ")
	return &ui.TUIOptions{
		Control: rt.control,
		Audit:   rt.audit,
		Company: company,
		Session: session,
		PageURL: func() string { return rt.page.URL() },
		LiveURL: rt.live.URL(),
	}
}
