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
	l, err := NewLive(&LiveOptions{Control: control.New(nil), Page: current.Load, Logger: slog.New(slog.DiscardHandler)})
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
	l, err := NewLive(&LiveOptions{Control: control.New(nil), Page: current.Load, Logger: slog.New(slog.DiscardHandler)})
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
