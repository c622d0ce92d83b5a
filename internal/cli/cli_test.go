package cli

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	var out bytes.Buffer
	fs := NewFlagSet("demo", "demo [flags]", &out)
	fs.Bool("x", false, "a flag")
	if err := Parse(fs, []string{"--help"}); !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "usage: poppy-browser demo [flags]") {
		t.Errorf("--help: %v, printed %q", err, out.String())
	}
	out.Reset()
	err := Parse(NewFlagSet("demo", "demo", &out), []string{"--nope"})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || strings.Contains(err.Error(), "\n") || out.Len() != 0 {
		t.Errorf("bad flag: %v, printed %q; want one line, exit 2, no usage", err, out.String())
	}
}

// TestRemoved: a removed flag, with a value or without, is one usage
// line naming its replacement and never echoing the value given.
func TestRemoved(t *testing.T) {
	for _, args := range [][]string{
		{"--live-user-header", "X-Auth=alice"},
		{"--live-user-header=X-Auth=alice"},
		{"-live-user-header"},
	} {
		fs := NewFlagSet("mcp", "mcp", &bytes.Buffer{})
		fs.Bool("x", false, "a flag")
		Removed(fs, "live-user-header", "use --live-identity-header")
		err := Parse(fs, args)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || err.Error() != "mcp: --live-user-header is removed: use --live-identity-header" {
			t.Errorf("%v: %v", args, err)
		}
	}
}
