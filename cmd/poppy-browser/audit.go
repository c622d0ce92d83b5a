package main

import (
	"fmt"
	"io"
	"os"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/internal/cli"
)

// runAudit prints an audit log as a readable timeline.
func runAudit(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("audit", "audit FILE", stderr)
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return cli.UsageErrorf("audit: give one audit log file (poppy-browser audit FILE)")
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	defer f.Close()
	entries, err := audit.Read(f)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return audit.WriteTimeline(stdout, entries)
}
