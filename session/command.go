package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// maxCommandOutput bounds what a credential command may print.
const maxCommandOutput = 64 << 10

// CommandSource is a [CredentialSource] that runs a command of the Personal
// Agent (`sh -c Command`) and reads the credential from its standard output.
//
// The command gets the request in its environment, as POPPY_ENDPOINT,
// POPPY_RETURN_TO and POPPY_DOMAIN, and must print exactly one line: the
// credential. Its standard error is discarded, and an error names only the
// exit status, since either stream may hold the credential.
//
// The zero value has no command and fails. A CommandSource is safe for
// concurrent use; each call runs the command afresh.
type CommandSource struct {
	// Command is the shell command line, run with sh -c.
	Command string
}

// Credential runs the command and returns its trimmed output.
func (s CommandSource) Credential(ctx context.Context, req CredentialRequest) (Secret, error) {
	if strings.TrimSpace(s.Command) == "" {
		return "", errors.New("credential command: no command given")
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", s.Command)
	cmd.Env = append(os.Environ(),
		"POPPY_ENDPOINT="+req.Endpoint,
		"POPPY_RETURN_TO="+req.ReturnTo,
		"POPPY_DOMAIN="+req.Domain,
	)
	var out limitedBuffer
	out.max = maxCommandOutput
	cmd.Stdout = &out
	cmd.Stderr = nil // discarded: it may echo the credential
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("credential command: %s", runFailure(ctx, err))
	}
	if out.over {
		return "", fmt.Errorf("credential command: output is larger than %d bytes", maxCommandOutput)
	}
	cred := strings.TrimSpace(out.String())
	switch {
	case cred == "":
		return "", errors.New("credential command: printed no credential")
	case strings.ContainsAny(cred, "\r\n"):
		return "", errors.New("credential command: printed more than one line")
	}
	return Secret(cred), nil
}

// runFailure describes why a command failed without quoting its output.
func runFailure(ctx context.Context, err error) string {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr.Error()
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ProcessState.String() // "exit status 3" or "signal: killed"
	}
	return err.Error()
}

// limitedBuffer keeps at most max bytes and remembers whether there was more.
type limitedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.over = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}
