package ui

import (
	"testing"

	"github.com/poppy-browser/poppy-browser/control"
)

// TestOneViewerControls: two viewers watch; the one that takes control is
// told "you", the other "another"; the other's input, hand back and
// navigation are dropped or refused by the runtime; control moves to it
// only when it takes control there itself.
func TestOneViewerControls(t *testing.T) {
	ctx := testContext(t)
	p := newPage(ctx, t, "http://company.test/form")
	ctl := control.New(nil)
	l, _ := startLive(t, ctl, p, nil)
	phone, laptop := connect(ctx, t, l), connect(ctx, t, l)
	next(ctx, t, phone, false)
	next(ctx, t, laptop, false)

	send(t, phone, map[string]string{"type": "take"})
	if m := next(ctx, t, phone, false); m.Controller != "user" || m.Viewer != "you" {
		t.Fatalf("the taker's state = %+v, want user, viewer you", m)
	}
	if m := next(ctx, t, laptop, false); m.Controller != "user" || m.Viewer != "another" {
		t.Fatalf("the other viewer's state = %+v, want user, viewer another", m)
	}

	// The other viewer's input is dropped: locate is refused, text and a
	// typed address go nowhere, hand back is refused.
	send(t, laptop, map[string]any{"type": "locate", "selector": "#name"})
	if m := next(ctx, t, laptop, false); m.Type != "error" {
		t.Fatalf("locate from the other viewer = %+v, want an error", m)
	}
	send(t, laptop, map[string]any{"type": "nav", "action": "go", "url": "http://company.test/red"})
	send(t, laptop, map[string]string{"type": "hand_back"})
	if m := next(ctx, t, laptop, false); m.Type != "error" || m.Message != "another viewer holds control" {
		t.Fatalf("hand back from the other viewer = %+v", m)
	}
	if ctl.Holder() != "user" || p.URL() != "http://company.test/form" {
		t.Fatalf("after the other viewer's input: holder %s, url %s; want user on the form", ctl.Holder(), p.URL())
	}

	// The User moves to the laptop by their own action there.
	send(t, laptop, map[string]string{"type": "take"})
	if m := next(ctx, t, laptop, false); m.Viewer != "you" {
		t.Fatalf("after take control here = %+v, want viewer you", m)
	}
	if m := next(ctx, t, phone, false); m.Viewer != "another" {
		t.Fatalf("the phone after the laptop took control = %+v, want viewer another", m)
	}
	send(t, laptop, map[string]any{"type": "locate", "selector": "#name"})
	if m := next(ctx, t, laptop, false); m.Type != "locate" {
		t.Fatalf("locate from the viewer in control = %+v", m)
	}
	send(t, laptop, map[string]string{"type": "hand_back"})
	if m := next(ctx, t, laptop, false); m.Controller != "agent" || m.Viewer != "" {
		t.Fatalf("after hand back = %+v, want agent", m)
	}
}
