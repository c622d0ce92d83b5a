package ui

import (
	"strings"
	"testing"
	"time"
)

// TestTUIShowsAPairingLink: p shows a pairing link minted for this
// terminal, with a QR code of it, and p again hides it; the key is listed
// only where pairing is possible.
func TestTUIShowsAPairingLink(t *testing.T) {
	tui, _, _ := newTestTUI(t)
	if s := screen(t, tui, 100, 60); strings.Contains(s, "pair a device") {
		t.Error("the p key is listed without a way to pair")
	}
	minted := 0
	tui.opts.Pair = func() (PairLink, error) {
		minted++
		return PairLink{URL: "http://localhost:40123/live/pair/SECRET", Expires: time.Date(2026, 12, 4, 12, 5, 0, 0, time.UTC)}, nil
	}
	press(t, tui, "p")
	s := screen(t, tui, 100, 60)
	for _, want := range []string{"pair a device", "Pair a device: open this link on it, it works once, until 12:05", "http://localhost:40123/live/pair/SECRET", "█"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	press(t, tui, "p")
	if s := screen(t, tui, 100, 60); strings.Contains(s, "/live/pair/") || minted != 1 {
		t.Errorf("after p again (minted %d):\n%s", minted, s)
	}
}
