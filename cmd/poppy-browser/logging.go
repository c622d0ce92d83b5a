package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

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
		return slog.New(redactHandler{slog.NewTextHandler(stderr, nil)}), stderr, nil
	case "json":
		log := slog.New(redactHandler{slog.NewJSONHandler(stderr, nil)})
		return log, &noticeLines{log: log}, nil
	}
	return nil, nil, cli.UsageErrorf("mcp: --log-format is text or json, not %q", format)
}

// redactHandler redacts every URL and bearer credential in a record's
// message and string values (errors and Stringers included), whatever
// the handler it wraps writes.
type redactHandler struct{ h slog.Handler }

func (r redactHandler) Enabled(ctx context.Context, l slog.Level) bool { return r.h.Enabled(ctx, l) }

func (r redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, secret.RedactText(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(a))
		return true
	})
	return r.h.Handle(ctx, out)
}

func (r redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = redactAttr(a)
	}
	return redactHandler{r.h.WithAttrs(red)}
}

func (r redactHandler) WithGroup(name string) slog.Handler { return redactHandler{r.h.WithGroup(name)} }

func redactAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve() // a secret.Value is "[redacted]" from here on
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, secret.RedactText(v.String()))
	case slog.KindGroup:
		g := v.Group()
		red := make([]any, len(g))
		for i, ga := range g {
			red[i] = redactAttr(ga)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, secret.RedactText(x.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, secret.RedactText(x.String()))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// maxNoticeLine bounds a line held back for its end.
const maxNoticeLine = 64 << 10

// noticeLines turns each line written to it into one log record
// ("notice", or a warning when the line says so), for --log-format json.
// It is safe for concurrent use.
type noticeLines struct {
	log *slog.Logger
	mu  sync.Mutex
	buf []byte
}

func (n *noticeLines) Write(p []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.buf = append(n.buf, p...)
	for {
		i := bytes.IndexByte(n.buf, '\n')
		if i < 0 && len(n.buf) < maxNoticeLine {
			break
		}
		if i < 0 {
			i = len(n.buf)
		}
		line := strings.TrimSpace(string(n.buf[:i]))
		n.buf = n.buf[min(i+1, len(n.buf)):]
		if line == "" {
			continue
		}
		if strings.Contains(strings.ToLower(line), "warning") {
			n.log.Warn("notice", "text", line)
		} else {
			n.log.Info("notice", "text", line)
		}
	}
	return len(p), nil
}
