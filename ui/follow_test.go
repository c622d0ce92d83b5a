package ui

import (
	"bytes"
	"context"
	"image/jpeg"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
)

// TestScreencastFollowsPage checks that the picture switches when Page
// starts returning another page, and that a live view with no page yet
// starts showing one once there is.
func TestScreencastFollowsPage(t *testing.T) {
	ctx := testContext(t)
	white := newPage(ctx, t, "http://company.test/form")
	red := newPage(ctx, t, "http://company.test/red")
	var current atomic.Pointer[browser.Page]
	l, err := NewLive(&LiveOptions{InsecureTakeByLink: true, Control: control.New(nil), Page: current.Load, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Shutdown(ctx) })
	c := connect(ctx, t, l)

	// isRed reads the picture's top-left corner.
	isRed := func(f message) bool {
		img, err := jpeg.Decode(bytes.NewReader(f.Data))
		if err != nil {
			t.Fatalf("frame is not a JPEG: %v", err)
		}
		r, g, b, _ := img.At(5, 5).RGBA()
		return r > 0xc000 && g < 0x4000 && b < 0x4000
	}
	current.Store(white)
	if isRed(next(ctx, t, c, true)) {
		t.Fatal("first picture is red, want the white page")
	}
	current.Store(red)
	for !isRed(next(ctx, t, c, true)) {
	}
}

// TestSecondClientGetsAPictureAtOnce: a client that joins while the page
// does not repaint still sees it at once (it used to see nothing until the
// page changed), and the state carries the address of the tab shown, again
// when the shown tab changes.
func TestSecondClientGetsAPictureAtOnce(t *testing.T) {
	ctx := testContext(t)
	white := newPage(ctx, t, "http://company.test/form")
	red := newPage(ctx, t, "http://company.test/red")
	var current atomic.Pointer[browser.Page]
	current.Store(white)
	l, err := NewLive(&LiveOptions{InsecureTakeByLink: true, Control: control.New(nil), Page: current.Load, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Shutdown(ctx) })
	first := connect(ctx, t, l)
	if st := next(ctx, t, first, false); st.Type != "state" || st.URL != "http://company.test/form" {
		t.Errorf("first state %+v, want the shown tab's address", st)
	}
	next(ctx, t, first, true)

	wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	second := connect(wctx, t, l)
	if f := next(wctx, t, second, true); len(f.Data) == 0 {
		t.Error("the second client's first frame is empty")
	}

	current.Store(red)
	for {
		st := next(ctx, t, first, false)
		if st.Type == "state" && st.URL == "http://company.test/red" {
			break
		}
	}
}

// TestUserAnswersADialog: a dialog the User's click opens during their turn
// is shown in the live view (the state carries it) and answered there; the
// answer reaches the page.
func TestUserAnswersADialog(t *testing.T) {
	ctx := testContext(t)
	p := newPage(ctx, t, "http://company.test/confirm")
	ctl := control.New(nil)
	l, err := NewLive(&LiveOptions{InsecureTakeByLink: true, Control: ctl, Page: func() *browser.Page { return p }, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Shutdown(ctx) })
	c := connect(ctx, t, l)
	send := func(m map[string]any) {
		t.Helper()
		if err := c.WriteJSON(m); err != nil {
			t.Fatal(err)
		}
	}
	state := func(ok func(message) bool) message {
		t.Helper()
		for {
			if m := next(ctx, t, c, false); m.Type == "state" && ok(m) {
				return m
			} else if m.Type == "error" {
				t.Fatalf("error from the live view: %s", m.Message)
			}
		}
	}
	send(map[string]any{"type": "take"})
	state(func(m message) bool { return m.Controller == "user" })
	send(map[string]any{"type": "mouse", "event": "down", "x": 100, "y": 100, "button": "left"})
	send(map[string]any{"type": "mouse", "event": "up", "x": 100, "y": 100, "button": "left"})
	m := state(func(m message) bool { return m.Dialog != nil })
	if m.Dialog.Type != "confirm" || m.Dialog.Message != "Cancel the booking?" {
		t.Errorf("dialog %+v", m.Dialog)
	}
	send(map[string]any{"type": "dialog", "accept": false})
	state(func(m message) bool { return m.Dialog == nil })
	var title string
	for title != "answer:false" {
		if err := p.MainFrame().Call(ctx, browser.UtilityWorld, "function(){ return document.title }", &title); err != nil {
			t.Fatal(err)
		}
	}
}
