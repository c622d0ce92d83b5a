package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/poppy-browser/poppy-browser/internal/cli"
)

// runConfigPath prints poppy-browser's directory in the User's config
// directory (os.UserConfigDir: $XDG_CONFIG_HOME or ~/.config on Linux,
// ~/Library/Application Support on macOS, %AppData% on Windows), where
// testsite and dev-credential keep the development key and the testsite's
// CA; with --file NAME, that file's path. MCP client entries use it as
// $(poppy-browser config-path), so one entry works on every OS.
func runConfigPath(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("config-path", "config-path [--file NAME]", stderr)
	file := fs.String("file", "", "print the path of this file in the directory (dev-agent-key.pem, testsite-ca.pem)")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return cli.UsageErrorf("config-path: no arguments expected, got %q", fs.Arg(0))
	}
	if *file != "" && (filepath.Base(*file) != *file || *file == "." || *file == "..") {
		return cli.UsageErrorf("config-path: --file takes a file name, not a path: %q", *file)
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return fmt.Errorf("config-path: %w", err)
	}
	p := filepath.Join(dir, "poppy-browser")
	if *file != "" {
		p = filepath.Join(p, *file)
	}
	_, err = fmt.Fprintln(stdout, p)
	return err
}
