package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/poppy-browser/poppy-browser/internal/childenv"
	"github.com/poppy-browser/poppy-browser/internal/tail"
)

// Limits of the credential command.
const (
	// MaxCommandOutput bounds what a credential command may print on
	// standard output; one byte more and it is stopped and fails.
	MaxCommandOutput = 64 << 10
	// DefaultCommandTimeout is how long a credential command may run when
	// [CommandSource.Timeout] is zero.
	DefaultCommandTimeout = 10 * time.Second
	// commandWaitDelay is how long Wait waits for the output pipes after the
	// process group was killed.
	commandWaitDelay = 2 * time.Second
	// maxStderrLine bounds the stderr line quoted in an error.
	maxStderrLine = 200
	// stderrTail is how much of standard error is kept (its end).
	stderrTail = 4 << 10
)

// CommandSource is a [CredentialSource] that runs a command of the Personal
// Agent (`sh -c Command`) and reads the credential from its standard output.
//
// The command runs in its own process group with an allowlisted environment
// (see [CommandEnv]) plus the request as POPPY_ENDPOINT, POPPY_RETURN_TO and
// POPPY_DOMAIN, and must print exactly one line: the credential. It is
// stopped, with its whole process group, when it prints more than
// [MaxCommandOutput] bytes, runs longer than Timeout, or ctx ends. When it
// fails, the error quotes the last line of its standard error, cleaned of
// control characters, at most 200 bytes, with token-like words (and the
// standard output, if any) replaced by "[redacted]".
//
// The zero value has no command and fails. A CommandSource is safe for
// concurrent use; each call runs the command afresh.
type CommandSource struct {
	// Command is the shell command line, run with sh -c.
	Command string
	// Timeout bounds one run; zero means [DefaultCommandTimeout].
	Timeout time.Duration
}

// Credential runs the command and returns its trimmed output.
func (s CommandSource) Credential(ctx context.Context, req CredentialRequest) (Secret, error) {
	cred, err := s.run(ctx, req)
	if err != nil {
		return Secret{}, fmt.Errorf("credential command: %w", err)
	}
	return cred, nil
}

func (s CommandSource) run(ctx context.Context, req CredentialRequest) (Secret, error) {
	if strings.TrimSpace(s.Command) == "" {
		return Secret{}, errors.New("no command given")
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultCommandTimeout
	}
	capCtx, tooLarge := context.WithCancelCause(ctx)
	defer tooLarge(nil)
	runCtx, cancel := context.WithTimeoutCause(capCtx, timeout, fmt.Errorf("timed out after %s", timeout))
	defer cancel()
	out := &cappedWriter{max: MaxCommandOutput, over: func() {
		tooLarge(fmt.Errorf("output is larger than %d bytes", MaxCommandOutput))
	}}
	errOut := &tail.Buffer{Max: stderrTail}

	cmd := exec.CommandContext(runCtx, "sh", "-c", s.Command)
	cmd.Env = append(CommandEnv(os.Environ()),
		"POPPY_ENDPOINT="+req.Endpoint,
		"POPPY_RETURN_TO="+req.ReturnTo,
		"POPPY_DOMAIN="+req.Domain,
	)
	cmd.Stdout, cmd.Stderr = out, errOut
	// Its own process group, killed whole: sh and everything it started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = commandWaitDelay
	if err := cmd.Start(); err != nil {
		return Secret{}, err
	}
	err := cmd.Wait()
	// A background child of a finished sh would outlive it: end the group.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if runCtx.Err() != nil {
		return Secret{}, context.Cause(runCtx)
	}
	stdout := out.String()
	if err != nil {
		return Secret{}, withStderr(runFailure(err), lastLine(errOut, stdout))
	}
	cred := strings.TrimSpace(stdout)
	switch {
	case cred == "":
		return Secret{}, withStderr("printed no credential", lastLine(errOut, ""))
	case strings.ContainsAny(cred, "\r\n"):
		return Secret{}, errors.New("printed more than one line")
	}
	return NewSecret(cred), nil
}

// runFailure describes why a command failed without quoting its output.
func runFailure(err error) string {
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ProcessState.String() // "exit status 3" or "signal: killed"
	}
	return err.Error()
}

// withStderr appends the command's last stderr line, when there is one.
func withStderr(what, line string) error {
	if line == "" {
		return errors.New(what)
	}
	return fmt.Errorf("%s (stderr: %q)", what, line)
}

// CommandEnv returns the part of environ (as os.Environ gives it) a
// credential command gets: the allowlist [childenv.Command] describes, so
// POPPY_MCP_TOKEN and OPENAI_API_KEY stay out.
func CommandEnv(environ []string) []string { return childenv.Keep(environ, childenv.Command) }

// cappedWriter keeps at most max bytes and calls over, once, at the first
// byte beyond. It has no ReadFrom, so os/exec copies through Write.
type cappedWriter struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	over  func()
	spilt bool
}

func (w *cappedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.spilt {
		return len(p), nil
	}
	if room := w.max - len(w.buf); len(p) > room {
		w.spilt = true
		w.over()
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

func (w *cappedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.buf)
}

// tokenLike matches words that look like a credential: long runs of
// base64url, base64 or hex characters, dots allowed (a JWT).
var tokenLike = regexp.MustCompile(`[A-Za-z0-9_\-+/=.]{24,}`)

// lastLine returns the last non-blank line written, fit for an error: no
// control characters, token-like words and stdout (what the command printed
// as the credential, if anything) redacted, at most maxStderrLine bytes.
func lastLine(errOut *tail.Buffer, stdout string) string {
	line := errOut.LastLine()
	if line == "" {
		return ""
	}
	if s := strings.TrimSpace(stdout); s != "" {
		line = strings.ReplaceAll(line, s, redactedWord)
	}
	line = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || !unicode.IsPrint(r) && r != ' ' {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(line, "?"))
	line = tokenLike.ReplaceAllString(line, redactedWord)
	if len(line) > maxStderrLine {
		cut := maxStderrLine
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = line[:cut] + "…"
	}
	return line
}

// redactedWord replaces a secret in a quoted stderr line.
const redactedWord = "[redacted]"

// RequestFromEnv is the request a credential command was run for, read
// from the environment the runtime gave it (POPPY_ENDPOINT,
// POPPY_RETURN_TO, POPPY_DOMAIN; see [CommandSource]), where endpoint and
// returnTo, when set, take precedence.
func RequestFromEnv(endpoint, returnTo string, getenv func(string) string) CredentialRequest {
	req := CredentialRequest{Endpoint: endpoint, ReturnTo: returnTo, Domain: getenv("POPPY_DOMAIN")}
	if req.Endpoint == "" {
		req.Endpoint = getenv("POPPY_ENDPOINT")
	}
	if req.ReturnTo == "" {
		req.ReturnTo = getenv("POPPY_RETURN_TO")
	}
	return req
}
