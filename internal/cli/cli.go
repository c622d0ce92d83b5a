// Package cli holds what every poppy-browser subcommand shares on its
// command line: flag sets whose --help prints the usage and whose bad flag
// is a one-line usage error (exit status 2), errors that carry their exit
// status, repeatable flags, and the small facts of a command line: a
// listener named by its flag, a display for --headful, how a shell quotes
// an argument and reaches this program. The README promises that a usage error is
// one line on stderr, prefixed with the command, and exit status 2.
//
// It owns no subcommand and must not import other packages of the module.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
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
		if name, instead, ok := removedIn(fs, err); ok {
			// One line naming the replacement, never the value given.
			return UsageErrorf("%s: --%s is removed: %s", fs.Name(), name, instead)
		}
		return UsageErrorf("%s: %v (see poppy-browser %s --help)", fs.Name(), err, fs.Name())
	}
	return nil
}

// removedPrefix begins the usage of a flag [Removed] registered, and
// removedMark its error, before its name.
const (
	removedPrefix = "removed: "
	removedMark   = "removed flag -"
)

// Removed registers name as a flag that no longer exists: giving it, with
// or without a value, is a usage error saying instead (what to use now).
func Removed(fs *flag.FlagSet, name, instead string) {
	fs.BoolFunc(name, removedPrefix+instead, func(string) error { return errors.New(removedMark + name) })
}

// removedIn reports whether err is the parse error of a flag [Removed]
// registered, and that flag's name and replacement.
func removedIn(fs *flag.FlagSet, err error) (name, instead string, ok bool) {
	fs.VisitAll(func(f *flag.Flag) {
		// The flag package ends each of its errors with the func's.
		if !ok && strings.HasPrefix(f.Usage, removedPrefix) && strings.HasSuffix(err.Error(), removedMark+f.Name) {
			name, instead, ok = f.Name, strings.TrimPrefix(f.Usage, removedPrefix), true
		}
	})
	return name, instead, ok
}

// StringList is a repeatable flag.
type StringList []string

func (s *StringList) String() string     { return fmt.Sprint(*s) }
func (s *StringList) Set(v string) error { *s = append(*s, v); return nil }

// ShellQuote quotes s for sh when it holds anything but safe characters.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Self is how a shell reaches this program: "poppy-browser" when that is
// what PATH finds, otherwise its absolute path, quoted.
func Self() string {
	self, err := os.Executable()
	if err != nil {
		return "poppy-browser"
	}
	if onPath, err := exec.LookPath("poppy-browser"); err == nil {
		a, errA := os.Stat(onPath)
		b, errB := os.Stat(self)
		if errA == nil && errB == nil && os.SameFile(a, b) {
			return "poppy-browser"
		}
	}
	return ShellQuote(self)
}

// Listen listens on addr, the value of flag of the subcommand cmd (nil
// when it is empty); a busy address names the flag to change.
func Listen(cmd, flag, addr string) (net.Listener, error) {
	if addr == "" {
		return nil, nil
	}
	l, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("%s: %s %s: the address is in use; choose another with %s", cmd, flag, addr, flag)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", cmd, flag, err)
	}
	return l, nil
}

// NeedDisplay says so at once when --headful would launch a window with no
// display to show it on: Chromium itself fails later with a D-Bus error
// that hides the cause.
func NeedDisplay(cmd string, headful bool, cdpURL string) error {
	if !headful || cdpURL != "" || runtime.GOOS != "linux" {
		return nil
	}
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return fmt.Errorf("%s: --headful needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set: leave out --headful, or run under xvfb-run", cmd)
	}
	return nil
}

// IsSet reports whether the command line set the flag name.
func IsSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// CloseListener closes l, a listener from [Listen] (nil when its flag was
// empty).
func CloseListener(l net.Listener) {
	if l != nil {
		l.Close()
	}
}

// RegisterNetwork adds the flags for staging servers: a CA to trust, and
// host names that reach a given address.
func RegisterNetwork(fs *flag.FlagSet, caFile *string, resolve *[]string) {
	fs.StringVar(caFile, "ca-file", "", "also trust this CA (PEM) for the Company's HTTPS, in discovery, the join and the browser")
	fs.Var((*StringList)(resolve), "resolve", "HOST=ADDR (repeatable): this host name reaches ADDR (IP or IP:port), in discovery, the join and the browser")
}
