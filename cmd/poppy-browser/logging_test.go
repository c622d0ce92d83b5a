package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/internal/secret"
)

// TestLoggersRedact: in both formats, a log record's message, string
// values, errors, groups and attributes added with With lose their URLs'
// secrets and bearer credentials; a secret.Value logs as [redacted]. In
// json, a line meant for the User is a notice record, redacted too; in
// text it goes to stderr as it is (the User's terminal).
func TestLoggersRedact(t *testing.T) {
	const s = "Zx9-secret-value"
	for _, format := range []string{"text", "json"} {
		var out bytes.Buffer
		log, notices, err := stderrLogger(format, &out)
		if err != nil {
			t.Fatal(err)
		}
		log.With("base", "wss://pool.example/token/"+s).Info("attaching to wss://pool.example/devtools/browser/"+s,
			"url", "http://127.0.0.1:1/live?token="+s,
			"err", errors.New("GET http://u:"+s+"@pool.example/json/version: refused"),
			"auth", "Bearer "+s,
			"key", secret.New(s),
			"g", map[string]any{}, // not a string: left as it is
		)
		log.WithGroup("grp").Warn("lost", "where", "ws://127.0.0.1:2/"+s)
		for _, want := range []string{"wss://pool.example/devtools/browser/[redacted]", "http://127.0.0.1:1/live", "auth=\"Bearer [redacted]\"", "key=[redacted]"} {
			if format == "text" && !strings.Contains(out.String(), want) {
				t.Errorf("text: the log lacks %q:\n%s", want, out.String())
			}
		}
		if format == "text" {
			if _, err := notices.Write([]byte("live view for the User: http://127.0.0.1:3/live?token=" + s + "\n")); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); strings.Count(got, s) != 1 || !strings.HasSuffix(got, "live?token="+s+"\n") {
				t.Errorf("text: the User's line is not on stderr as it was, or a log record keeps a secret:\n%s", got)
			}
			continue
		}
		if _, err := notices.Write([]byte("live view for the User: http://127.0.0.1:3/live?token=" + s + "\npartial")); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		if strings.Contains(got, s) {
			t.Errorf("%s: a secret is in the log:\n%s", format, got)
		}
		for _, want := range []string{"wss://pool.example/devtools/browser/[redacted]", "http://127.0.0.1:1/live", "[redacted]", "live view for the User: http://127.0.0.1:3/live"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: the log lacks %q:\n%s", format, want, got)
			}
		}
		if strings.Contains(got, "partial") {
			t.Errorf("json: a line without its end was logged:\n%s", got)
		}
		jsonRecords(t, got)
	}
}
