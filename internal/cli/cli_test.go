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
