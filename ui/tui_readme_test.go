package ui

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestREADMEListsEveryTUIKey: every key the terminal UI's own key line
// shows (the agent at work, the User in control, with pairing) is in the
// README's two key lists, as "`K` what" (a User reads the README to learn
// them; the m key for a message to the agent was missing).
func TestREADMEListsEveryTUIKey(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	tui, _, _ := newTestTUI(t)
	tui.opts.Pair = func() (PairLink, error) {
		return PairLink{URL: "http://localhost:40123/live/pair/SECRET", Expires: time.Now().Add(time.Minute)}, nil
	}
	screens := screen(t, tui, 120, 32)
	press(t, tui, "t")
	screens += screen(t, tui, 120, 32)
	keys := map[string]bool{}
	for _, m := range regexp.MustCompile(`\[([a-z])\] `).FindAllStringSubmatch(screens, -1) {
		keys[m[1]] = true
	}
	if len(keys) < 7 {
		t.Fatalf("the key lines show %d keys (%v), want t, m, h, c, l, q, p:\n%s", len(keys), keys, screens)
	}
	lists := regexp.MustCompile("(?s)keys?:? `t` take.*?`q` quit[^.;)]*").FindAll(readme, -1)
	if len(lists) != 2 {
		t.Fatalf("README has %d key lists, want 2 (the demo and the terminal UI)", len(lists))
	}
	for _, list := range lists {
		for k := range keys {
			if !strings.Contains(string(list), "`"+k+"`") {
				t.Errorf("README's key list %q does not list the %s key", list, k)
			}
		}
	}
}
