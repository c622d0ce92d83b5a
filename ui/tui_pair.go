package ui

import (
	"strings"

	"github.com/skip2/go-qrcode"
)

// pair shows (p) a pairing link for one of the User's devices, with a QR
// code to scan, or hides the one shown. The link is shown here only: the
// terminal is a channel only the User holds.
func (t *TUI) pair() {
	if t.opts.Pair == nil {
		return
	}
	if t.pairing != nil {
		t.pairing, t.pairQR = nil, ""
		return
	}
	pl, err := t.opts.Pair()
	if err != nil {
		t.note = "No pairing link: " + err.Error()
		return
	}
	t.pairing = &pl
	if q, err := qrcode.New(pl.URL, qrcode.Low); err == nil {
		t.pairQR = strings.TrimRight(q.ToSmallString(false), "\n")
	}
	t.note = ""
}

// pairLines are the lines the pairing link takes on screen.
func (t *TUI) pairLines() []string {
	if t.pairing == nil {
		return nil
	}
	lines := []string{"Pair a device: open this link on it, it works once, until " +
		t.pairing.Expires.In(t.opts.Location).Format("15:04") + " (p hides it):", t.pairing.URL}
	if t.pairQR != "" {
		lines = append(lines, strings.Split(t.pairQR, "\n")...)
	}
	return lines
}
