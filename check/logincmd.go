package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// A login command (--login-cmd) logs in to the Company's site once, before
// its pages are checked, and prints the session it got as Playwright's
// storage-state JSON on stdout (a Playwright script ends with
// context.storageState(); a curl script can write the cookie). What it
// prints is a credential: it reaches the browser only, never a report, a
// log or an error.

// DefaultLoginTimeout bounds a login command.
const DefaultLoginTimeout = 2 * time.Minute

// maxLoginOutput bounds what a login command may print.
const maxLoginOutput = 4 << 20

// StorageStateFromCommand runs command with sh, once, with POPPY_CHECK_URL
// set to pageURL (the first page to check), and reads the storage state it
// prints. Its errors say how the command failed (exit status, timeout,
// its last line on stderr), never what it printed on stdout.
func StorageStateFromCommand(ctx context.Context, command, pageURL string, timeout time.Duration) (*StorageState, error) {
	if strings.TrimSpace(command) == "" {
		return nil, errors.New("login command: no command given")
	}
	if timeout <= 0 {
		timeout = DefaultLoginTimeout
	}
	runCtx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("timed out after %s", timeout))
	defer cancel()
	var out, errOut limitedBuffer
	out.max, errOut.max = maxLoginOutput, 64<<10
	cmd := exec.CommandContext(runCtx, "sh", "-c", command)
	cmd.Env = append(os.Environ(), "POPPY_CHECK_URL="+pageURL)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	// Its own process group, killed whole: sh and everything it started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("login command: %w", err)
	}
	err := cmd.Wait()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // a background child outliving sh
	switch {
	case runCtx.Err() != nil:
		return nil, fmt.Errorf("login command: %w", context.Cause(runCtx))
	case err != nil:
		var exitErr *exec.ExitError
		what := err.Error()
		if errors.As(err, &exitErr) {
			what = exitErr.ProcessState.String()
		}
		if line := lastLine(errOut.b.String()); line != "" {
			return nil, fmt.Errorf("login command: %s (stderr: %q)", what, line)
		}
		return nil, fmt.Errorf("login command: %s", what)
	case out.over:
		return nil, fmt.Errorf("login command: printed more than %d bytes", maxLoginOutput)
	case len(bytes.TrimSpace(out.b.Bytes())) == 0:
		return nil, errors.New("login command: printed no storage state on stdout")
	}
	st, err := parseStorageState(out.b.Bytes(), "it printed")
	if err != nil {
		return nil, fmt.Errorf("login command: %w", err)
	}
	return st, nil
}

// limitedBuffer keeps the first max bytes written and notes the rest.
type limitedBuffer struct {
	b    bytes.Buffer
	max  int
	over bool
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); len(p) > room {
		l.over = true
		l.b.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return l.b.Write(p)
}

// lastLine is the last non-empty line of s, clipped.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return clip(strings.TrimSpace(lines[len(lines)-1]))
}
