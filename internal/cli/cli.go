// Package cli holds what every poppy-browser subcommand shares on its
// command line: flag sets whose --help prints the usage and whose bad flag
// is a one-line usage error (exit status 2), errors that carry their exit
// status, and repeatable flags. The README promises that a usage error is
// one line on stderr, prefixed with the command, and exit status 2.
//
// It owns no subcommand and must not import other packages of the module.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// ExitError ends the program with Code, printing Msg when it is not empty.
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }

// ExitCode is the process exit status main uses.
func (e *ExitError) ExitCode() int { return e.Code }

// UsageErrorf is a usage error: one line on stderr and exit status 2.
func UsageErrorf(format string, args ...any) error {
	return &ExitError{Code: 2, Msg: fmt.Sprintf(format, args...)}
}

// NewFlagSet returns a flag set for the subcommand name whose usage
// ("usage: poppy-browser SYNOPSIS" and the flags) goes to stderr on --help.
func NewFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// The flag package would print a parse error and main prints it again:
	// keep its own output quiet; --help still prints the usage.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: poppy-browser %s\n\nflags:\n", synopsis)
		fs.SetOutput(stderr)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// Parse parses args with fs. --help prints the command's usage (and
// returns flag.ErrHelp, exit 0); a bad flag is a one-line usage error.
func Parse(fs *flag.FlagSet, args []string) error {
	printUsage := fs.Usage
	fs.Usage = func() {} // the flag package calls it on errors too
	err := fs.Parse(args)
	fs.Usage = printUsage
	switch {
	case errors.Is(err, flag.ErrHelp):
		printUsage()
		return err
	case err != nil:
		return UsageErrorf("%s: %v (see poppy-browser %s --help)", fs.Name(), err, fs.Name())
	}
	return nil
}

// StringList is a repeatable flag.
type StringList []string

func (s *StringList) String() string     { return fmt.Sprint(*s) }
func (s *StringList) Set(v string) error { *s = append(*s, v); return nil }
