package secret

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// RedactingHandler wraps h so that every URL and bearer credential in a
// record's message and string values (errors and Stringers included) is
// redacted ([RedactText]), whatever h writes.
func RedactingHandler(h slog.Handler) slog.Handler { return redactHandler{h} }

type redactHandler struct{ h slog.Handler }

func (r redactHandler) Enabled(ctx context.Context, l slog.Level) bool { return r.h.Enabled(ctx, l) }

func (r redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, RedactText(rec.Message), rec.PC)
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
		return slog.String(a.Key, RedactText(v.String()))
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
			return slog.String(a.Key, RedactText(x.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, RedactText(x.String()))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// maxNoticeLine bounds a line held back for its end.
const maxNoticeLine = 64 << 10

// LineRecords returns a writer that turns each line written to it into one
// record of log ("notice", its words under "text"; a warning when the line
// says so): the lines meant for a person, in a JSON log. Give it a log
// whose handler redacts ([RedactingHandler]). It is safe for concurrent use.
func LineRecords(log *slog.Logger) io.Writer { return &noticeLines{log: log} }

// noticeLines is [LineRecords]' writer.
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
