package ui

import (
	"testing"

	"github.com/poppy-browser/poppy-browser/control"
)

func TestTypedURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"example.com", "https://example.com"},
		{"  http://company.test/form ", "http://company.test/form"},
		{"https://airline.test/bookings?x=1", "https://airline.test/bookings?x=1"},
		{"javascript:alert(1)", ""},
		{"file:///etc/passwd", ""},
		{"chrome://settings", ""},
		{"", ""},
	} {
		got, err := typedURL(tc.in)
		if (err != nil) != (tc.want == "") || got != tc.want {
			t.Errorf("typedURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestUserBrowserBasics: in their turn the User goes to a typed address,
// back, forward and reloads; switches and closes tabs. While the agent
// holds control the same messages do nothing.
func TestUserBrowserBasics(t *testing.T) {
	ctx := testContext(t)
	p := newPage(ctx, t, "http://company.test/form")
	ctl := control.New(nil)
	l, _ := startLive(t, ctl, p, nil)
	c := connect(ctx, t, l)
	next(ctx, t, c, false)

	// The agent holds control: a typed address goes nowhere. The locate
	// after it is answered once the nav has been handled.
	send(t, c, map[string]any{"type": "nav", "action": "go", "url": "company.test/red"})
	send(t, c, map[string]any{"type": "locate", "selector": "body"})
	if m := next(ctx, t, c, false); m.Type != "error" {
		t.Fatalf("locate while the agent holds control = %+v", m)
	}
	if got := p.URL(); got != "http://company.test/form" {
		t.Fatalf("URL after a nav while the agent holds control = %q", got)
	}

	send(t, c, map[string]string{"type": "take"})
	next(ctx, t, c, false)
	send(t, c, map[string]any{"type": "nav", "action": "go", "url": "javascript:alert(1)"})
	if m := next(ctx, t, c, false); m.Type != "error" {
		t.Fatalf("javascript: address = %+v, want an error", m)
	}
	send(t, c, map[string]any{"type": "nav", "action": "go", "url": "http://company.test/red"})
	poll(ctx, t, "the typed address", func() bool { return p.Title(ctx) == "red" })
	send(t, c, map[string]any{"type": "nav", "action": "back"})
	poll(ctx, t, "back", func() bool { return p.URL() == "http://company.test/form" })
	send(t, c, map[string]any{"type": "nav", "action": "forward"})
	poll(ctx, t, "forward", func() bool { return p.URL() == "http://company.test/red" })
	send(t, c, map[string]any{"type": "nav", "action": "reload"})
	poll(ctx, t, "reload", func() bool { return p.Title(ctx) == "red" })

	second, _, err := p.Tabs().New(ctx, "http://company.test/confirm")
	if err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "a state with two tabs", func() bool {
		m := next(ctx, t, c, false)
		return m.Type == "state" && len(m.Tabs) == 2
	})
	send(t, c, map[string]any{"type": "tab", "action": "select", "index": 0})
	poll(ctx, t, "the first tab active", func() bool { return p.Tabs().Active() == p })
	send(t, c, map[string]any{"type": "tab", "action": "close", "index": 1})
	poll(ctx, t, "the second tab closed", func() bool {
		select {
		case <-second.Done():
			return true
		default:
			return false
		}
	})
}
