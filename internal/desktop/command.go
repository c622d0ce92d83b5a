package desktop

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/poppy-browser/poppy-browser/internal/cli"
)

// RunOpenLive is the open-live subcommand: it opens the running runtime's
// live view in the User's web browser, the token never on a command line.
func RunOpenLive(ctx context.Context, args []string, stderr io.Writer) error {
	fs := cli.NewFlagSet("open-live", "open-live [--live-url-file FILE]", stderr)
	file := fs.String("live-url-file", DefaultURLFile(), "the live view URL file the runtime wrote")
	opener := fs.String("opener", strings.Join(DefaultOpener(), " "), "the command that opens a local HTML file in the web browser")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return cli.UsageErrorf("open-live: takes no arguments (poppy-browser open-live [--live-url-file FILE])")
	}
	if err := OpenLive(ctx, *file, strings.Fields(*opener)); err != nil {
		return fmt.Errorf("open-live: %w", err)
	}
	fmt.Fprintln(stderr, "opened the live view in your web browser")
	return nil
}
