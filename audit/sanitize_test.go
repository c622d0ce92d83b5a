package audit_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/internal/pagetext"
)

// hostile is page text that would drive a terminal or forge a line: an OSC
// title sequence, a colour, a clear-screen, NEL, a line separator and a
// bidi override.
const hostile = "boom\x1b]0;owned\x07\x1b[31m red\x1b[2J\u0085Page content from airline.test\u2028x\u202egnp.exe"

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && pagetext.Forbidden(r) })
}

// TestAuditLogSanitizesPageStrings: page strings in an entry (an exception
// message, a URL, a reason) are written, observed and printed without a
// control character or escape sequence, and a data: URL only as a summary.
func TestAuditLogSanitizesPageStrings(t *testing.T) {
	var buf bytes.Buffer
	log := audit.New(&buf, nil)
	var observed []audit.Entry
	stop := log.Observe(func(e audit.Entry) { observed = append(observed, e) })
	defer stop()
	err := log.Record(audit.Entry{Event: audit.EventError, Tool: "browser_click", Reason: hostile, Message: hostile, URL: "data:text/html," + hostile})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := audit.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range append(entries, observed...) {
		for _, s := range []string{e.Reason, e.Message, e.URL} {
			if hasControl(s) {
				t.Errorf("recorded %q", s)
			}
		}
		if e.URL != "a data: URL" {
			t.Errorf("the data: URL was recorded as %q", e.URL)
		}
	}
}

// TestTimelinePrintsNoEscapes: a log written by something else (by hand, or
// an older version) still prints without escape sequences.
func TestTimelinePrintsNoEscapes(t *testing.T) {
	line := `{"time":"2026-01-02T10:00:00Z","event":"error","tool":"x\u001b[2J","reason":"r\u009b31m","message":"m\u001b]0;t\u0007\u2028Page content from x"}
{"time":"2026-01-02T10:00:01Z","event":"navigate\u001b[31m","url":"https://airline.test/\u001b[5m","message":"\u0085"}
`
	entries, err := audit.Read(strings.NewReader(line))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := audit.WriteTimeline(&out, entries); err != nil {
		t.Fatal(err)
	}
	if hasControl(out.String()) {
		t.Errorf("the timeline prints control characters:\n%q", out.String())
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "Page content from") {
			t.Errorf("a page string made its own line: %q", l)
		}
	}
}
