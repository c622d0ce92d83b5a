// Command poppy-browser is the browser of a Personal Agent that honours the
// Poppy browser-control extension. See the README for the subcommands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/poppy-browser/poppy-browser/check"
	"github.com/poppy-browser/poppy-browser/internal/cli"
	"github.com/poppy-browser/poppy-browser/internal/desktop"
	"github.com/poppy-browser/poppy-browser/internal/version"
	"github.com/poppy-browser/poppy-browser/testsite/devsite"
	"github.com/poppy-browser/poppy-browser/ui"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) {
		if err.Error() != "" {
			fmt.Fprintf(os.Stderr, "poppy-browser: %v\n", err)
		}
		os.Exit(coded.ExitCode())
	}
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(os.Stderr, "poppy-browser: %v\n", err)
		os.Exit(1)
	}
}

const usage = `usage: poppy-browser <command> [flags]

commands:
  demo            the demo airline, the browser, the built-in agent and the User in one process
  run             the built-in agent on a Company's website: run --company URL --task TEXT
  mcp             an MCP server whose browser belongs to a Company's Session
  testsite        serve the demo airline and its fixture pages, with lines to paste that join it
  dev-credential  sign a join credential as a development Personal Agent (for --assertion-cmd)
  check           conformance report for Company pages (exit 0 clean, 1 findings, 2 could not check)
  audit           print an audit log (JSONL) as a readable timeline
  open-live       open the live view (the User's way in) in the default web browser
  live-link       print a single-use link to the running live view, for a User who wants in
  pair            pair one of your devices (a passkey) to prove it's you when you take control; --list, --revoke ID
  config-path     print poppy-browser's config directory (the development key, the testsite's CA)
  version         print the version (also --version)

Run 'poppy-browser <command> --help' for the flags of a command.
`

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return cli.UsageErrorf("no command given (see poppy-browser --help)")
	}
	switch args[0] {
	case "mcp":
		return runMCP(ctx, args[1:], stdin, stdout, stderr)
	case "testsite":
		return devsite.RunTestsite(ctx, args[1:], stdout, stderr)
	case "dev-credential":
		return devsite.RunDevCredential(ctx, args[1:], stdout, stderr)
	case "demo":
		return runDemo(ctx, args[1:], stdin, stdout, stderr)
	case "run":
		return runAgent(ctx, args[1:], stdin, stdout, stderr)
	case "check":
		return check.RunCommand(ctx, args[1:], stdout, stderr, nil)
	case "audit":
		return runAudit(args[1:], stdout, stderr)
	case "open-live":
		return desktop.RunOpenLive(ctx, args[1:], stderr)
	case "live-link":
		return desktop.RunLiveLink(ctx, args[1:], stdout, stderr)
	case "config-path":
		return runConfigPath(args[1:], stdout, stderr)
	case "pair":
		return ui.RunPair(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "poppy-browser %s\n", version.String())
		return nil
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		return cli.UsageErrorf("unknown command %q (see poppy-browser --help)", args[0])
	}
}
