package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditCommand prints audit's timeline fixture: the same golden as
// audit's own test, through the command line.
func TestAuditCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run(t.Context(), []string{"audit", filepath.Join("..", "..", "audit", "testdata", "timeline.jsonl")}, nil, &out, &errb); err != nil {
		t.Fatalf("audit: %v (%s)", err, errb.String())
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "audit", "testdata", "timeline.golden.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Errorf("audit printed:\n%s\nwant:\n%s", out.String(), want)
	}
	for _, args := range [][]string{{"audit"}, {"audit", filepath.Join(t.TempDir(), "missing.jsonl")}} {
		if err := run(t.Context(), args, nil, &out, &errb); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: err = %v, want one line", args, err)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("{\"event\":\"join\"}\nnot json\n"), 0o600)
	if err := run(t.Context(), []string{"audit", bad}, nil, &out, &errb); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad log: err = %v, want its line number", err)
	}
}

// TestAuditCommandPrintsNoEscapes: page strings in a log (an exception
// message with terminal sequences) print as plain text.
func TestAuditCommandPrintsNoEscapes(t *testing.T) {
	log := filepath.Join(t.TempDir(), "hostile.jsonl")
	line := `{"time":"2026-01-02T10:00:00Z","event":"error","tool":"browser_click","message":"TypeError: \u001b]0;owned\u0007\u001b[2J\u0085done","url":"data:text/html,\u001b[31m"}` + "\n"
	if err := os.WriteFile(log, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := run(t.Context(), []string{"audit", log}, nil, &out, &errb); err != nil {
		t.Fatalf("audit: %v (%s)", err, errb.String())
	}
	if strings.ContainsAny(out.String(), "\x1b\x07\u0085") {
		t.Errorf("audit printed escape sequences: %q", out.String())
	}
	if !strings.Contains(out.String(), "TypeError: ]0;owned[2J done") {
		t.Errorf("audit lost the message's text: %q", out.String())
	}
}
