package main

import (
	"io"
	"log/slog"

	"github.com/poppy-browser/poppy-browser/internal/cli"
	"github.com/poppy-browser/poppy-browser/internal/secret"
)

// stderrLogger is the runtime's logger on stderr, in format (text or
// json), and where the lines meant for the User go (the addresses, the
// warnings, the offers). In text, those lines are stderr itself: the
// User's terminal, so the live view's URL keeps its token there. In json,
// stderr is for log collectors: each such line becomes a record ("notice",
// its words under "text"), and no record carries a secret: every URL in a
// record loses its query, user info and token-like path segments, and a
// bearer credential is replaced ([secret.RedactText]). Log records are
// redacted so in both formats.
func stderrLogger(format string, stderr io.Writer) (*slog.Logger, io.Writer, error) {
	switch format {
	case "text":
		return slog.New(secret.RedactingHandler(slog.NewTextHandler(stderr, nil))), stderr, nil
	case "json":
		log := slog.New(secret.RedactingHandler(slog.NewJSONHandler(stderr, nil)))
		return log, secret.LineRecords(log), nil
	}
	return nil, nil, cli.UsageErrorf("mcp: --log-format is text or json, not %q", format)
}
