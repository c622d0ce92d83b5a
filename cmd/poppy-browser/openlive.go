package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/poppy-browser/poppy-browser/internal/desktop"
)

// runOpenLive opens the running runtime's live view in the User's web
// browser, the token never on a command line (package desktop).
func runOpenLive(ctx context.Context, args []string, stderr io.Writer) error {
	fs := newFlagSet("open-live", "open-live [--live-url-file FILE]", stderr)
	file := fs.String("live-url-file", desktop.DefaultURLFile(), "the live view URL file the runtime wrote")
	opener := fs.String("opener", strings.Join(desktop.DefaultOpener(), " "), "the command that opens a local HTML file in the web browser")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf("open-live: takes no arguments (poppy-browser open-live [--live-url-file FILE])")
	}
	if err := desktop.OpenLive(ctx, *file, strings.Fields(*opener)); err != nil {
		return fmt.Errorf("open-live: %w", err)
	}
	fmt.Fprintln(stderr, "opened the live view in your web browser")
	return nil
}
