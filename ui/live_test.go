package ui

import (
	"bytes"
	"context"
	"image/jpeg"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
)

// TestUserTypesIntoPage drives the User channel as a scripted User: the
// input reaches the page only while the User holds control.
func TestUserTypesIntoPage(t *testing.T) {
	ctx := testContext(t)
	p := newPage(ctx, t, "http://company.test/form")
	ctl := control.New(nil)
	l, _ := startLive(t, ctl, p, nil)
	c := connect(ctx, t, l)

	title := func() string { return p.Title(ctx) }
	if m := next(ctx, t, c, false); m.Type != "state" || m.Controller != "agent" {
		t.Fatalf("first message = %+v, want state agent", m)
	}

	// The agent holds control: a click and text are dropped, locate refused.
	// Messages are handled in order, so the locate reply means the input
	// before it was handled.
	click := func(x, y float64) {
		for _, ev := range []string{"move", "down", "up"} {
			send(t, c, map[string]any{"type": "mouse", "event": ev, "x": x, "y": y, "button": "left"})
		}
	}
	send(t, c, map[string]any{"type": "locate", "selector": "#name"})
	if m := next(ctx, t, c, false); m.Type != "error" {
		t.Fatalf("locate while the agent holds control = %+v, want an error", m)
	}

	send(t, c, map[string]string{"type": "take"})
	if m := next(ctx, t, c, false); m.Type != "state" || m.Controller != "user" {
		t.Fatalf("after take = %+v, want state user", m)
	}
	send(t, c, map[string]any{"type": "locate", "selector": "#name"})
	box := next(ctx, t, c, false)
	if box.Type != "locate" || box.Width == 0 || box.Height == 0 {
		t.Fatalf("locate = %+v, want a box", box)
	}
	x, y := box.X+box.Width/2, box.Y+box.Height/2
	click(x, y)
	send(t, c, map[string]string{"type": "text", "text": "hello"})
	poll(ctx, t, "the typed text in the page", func() bool { return title() == "value:hello" })
	send(t, c, map[string]any{"type": "key", "event": "down", "key": "Backspace"})
	send(t, c, map[string]any{"type": "key", "event": "up", "key": "Backspace"})
	poll(ctx, t, "backspace in the page", func() bool { return title() == "value:hell" })

	send(t, c, map[string]string{"type": "hand_back"})
	if m := next(ctx, t, c, false); m.Type != "state" || m.Controller != "agent" {
		t.Fatalf("after hand_back = %+v, want state agent", m)
	}
	// The input still has focus: the same text would change it if let through.
	click(x, y)
	send(t, c, map[string]string{"type": "text", "text": "XYZ"})
	send(t, c, map[string]any{"type": "key", "event": "down", "key": "Backspace"})
	send(t, c, map[string]any{"type": "locate", "selector": "#name"})
	if m := next(ctx, t, c, false); m.Type != "error" {
		t.Fatalf("locate after hand back = %+v, want an error", m)
	}
	if got := title(); got != "value:hell" {
		t.Errorf("title after input while the agent holds control = %q, want %q (unchanged)", got, "value:hell")
	}
	send(t, c, map[string]string{"type": "hand_back"})
	if m := next(ctx, t, c, false); m.Type != "error" {
		t.Errorf("second hand_back = %+v, want an error", m)
	}
	if st := ctl.Status(); st.Epoch != 1 || st.LastReturn == nil || st.LastReturn.How != control.HowHandedBack {
		t.Errorf("status after the session = %+v, want one hand back", st)
	}
}

// TestStateFollowsControl checks the state messages for an offer, a take
// and a cancel.
func TestStateFollowsControl(t *testing.T) {
	ctx := testContext(t)
	ctl := control.New(nil)
	l, _ := startLive(t, ctl, nil, nil)
	c := connect(ctx, t, l)
	if m := next(ctx, t, c, false); m.Controller != "agent" || m.Offer != nil {
		t.Fatalf("first state = %+v, want agent without offer", m)
	}
	ctl.RequestUser("please pick your seat", &control.Step{Ref: "e4", Kind: "interaction", Text: "Choose a seat"})
	m := next(ctx, t, c, false)
	if m.Offer == nil {
		t.Fatalf("state after offer = %+v, want the offer", m)
	}
	if diff := cmp.Diff([]string{"state", "agent", "please pick your seat", "Choose a seat"},
		[]string{m.Type, m.Controller, m.Offer.Reason, m.Offer.Step.Text}); diff != "" {
		t.Errorf("state after offer (-want +got):\n%s", diff)
	}
	send(t, c, map[string]string{"type": "take"})
	if m := next(ctx, t, c, false); m.Controller != "user" || m.Offer == nil {
		t.Errorf("state after take = %+v, want user with the offer", m)
	}
	send(t, c, map[string]string{"type": "cancel"})
	if m := next(ctx, t, c, false); m.Controller != "agent" || m.Offer != nil {
		t.Errorf("state after cancel = %+v, want agent without offer", m)
	}
	if st := ctl.Status(); st.LastReturn == nil || st.LastReturn.How != control.HowCancelled {
		t.Errorf("last return = %+v, want cancelled", st.LastReturn)
	}
	send(t, c, map[string]string{"type": "dance"})
	if m := next(ctx, t, c, false); m.Type != "error" {
		t.Errorf("unknown type answered with %+v, want an error", m)
	}
}

// TestFramesOnlyWithClients checks that the screencast runs while a client
// is connected and stops when the last one leaves.
func TestFramesOnlyWithClients(t *testing.T) {
	ctx := testContext(t)
	p := newPage(ctx, t, "http://company.test/form")
	var frames atomic.Int64
	l, _ := startLive(t, control.New(nil), p, func(l *Live) { l.onFrame = func() { frames.Add(1) } })
	if l.casting() {
		t.Fatal("screencast runs with no client")
	}
	var vp struct{ W, H float64 }
	if err := p.MainFrame().Call(ctx, browser.UtilityWorld, "function(){ return {W: innerWidth, H: innerHeight} }", &vp); err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		c := connect(ctx, t, l)
		f := next(ctx, t, c, true)
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(f.Data))
		if err != nil {
			t.Fatalf("round %d: frame is not a JPEG: %v", round, err)
		}
		if f.Width != vp.W || f.Height != vp.H || cfg.Width == 0 {
			t.Errorf("round %d: frame %vx%v (picture %dx%d), want the %vx%v viewport", round, f.Width, f.Height, cfg.Width, cfg.Height, vp.W, vp.H)
		}
		c.Close()
		poll(ctx, t, "the screencast to stop", func() bool { return l.Clients() == 0 && !l.casting() })
		// Stopped means Page.Screencast has returned: no frame can follow.
		n := frames.Load()
		if n == 0 {
			t.Fatalf("round %d: no frame counted", round)
		}
		if l.casting() || frames.Load() != n {
			t.Errorf("round %d: frames after the last client left", round)
		}
	}
}

// casting reports whether a screencast goroutine is still running.
func (l *Live) casting() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cast != nil {
		return true
	}
	if l.lastCast == nil {
		return false
	}
	select {
	case <-l.lastCast:
		return false
	default:
		return true
	}
}

// TestRefusals checks every request without the token, from another origin
// or host, is refused with a bare 403.
func TestRefusals(t *testing.T) {
	ctx := testContext(t)
	l, logs := startLive(t, control.New(nil), nil, nil)
	addr := liveAddr(l)
	self := "http://" + addr
	tok := l.token.Reveal()
	for _, tc := range []struct {
		name, path, token, origin, host string
		want                            int
		noQuery                         bool // the address has no token parameter at all
	}{
		{name: "page", path: "/live", token: tok, want: 200},
		{name: "page as 127.0.0.1", path: "/live", token: tok, host: strings.Replace(addr, "localhost", "127.0.0.1", 1), want: 200},
		{name: "page with an empty token", path: "/live", want: 403},
		// The page a link's login opens: the same for everyone, no secret
		// in it; its websocket needs the login.
		{name: "page without token parameter", path: "/live", noQuery: true, want: 200},
		{name: "page with wrong token", path: "/live", token: tok[:len(tok)-1] + "x", want: 403},
		{name: "page with token prefix", path: "/live", token: tok[:10], want: 403},
		{name: "page fetched from another origin", path: "/live", token: tok, origin: "http://partner.test", want: 403},
		{name: "page under another host", path: "/live", token: tok, host: strings.Replace(addr, "localhost", "partner.test", 1), want: 403},
		{name: "other path without token", path: "/live/live.js", want: 403},
		{name: "other path", path: "/live/live.js", token: tok, want: 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := self + tc.path + "?token=" + url.QueryEscape(tc.token)
			if tc.noQuery {
				u = self + tc.path
			}
			req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			resp, err := (&http.Client{}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status = %d, want %d", resp.StatusCode, tc.want)
			}
			if resp.StatusCode == 403 && len(body) != 0 {
				t.Errorf("refusal has a body: %q", body)
			}
			if got := resp.Header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control = %q", got)
			}
			if tc.want != 200 {
				return
			}
			host := req.Host
			if host == "" {
				host = addr
			}
			want := map[string]string{"X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"}
			got := map[string]string{"X-Frame-Options": resp.Header.Get("X-Frame-Options"), "Referrer-Policy": resp.Header.Get("Referrer-Policy")}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
			csp := resp.Header.Get("Content-Security-Policy")
			for _, part := range []string{"default-src 'self'", "connect-src 'self' ws://" + host, "img-src data: blob:", "frame-ancestors 'none'"} {
				if !strings.Contains(csp, part) {
					t.Errorf("Content-Security-Policy %q lacks %q", csp, part)
				}
			}
			if !strings.Contains(string(body), "The agent") && !strings.Contains(string(body), "Take control") {
				t.Errorf("page does not look like the live view")
			}
			if strings.Contains(string(body), tok) {
				t.Error("the page holds the token")
			}
		})
	}

	for _, tc := range []struct {
		name, token, origin string
		ok                  bool
	}{
		{name: "right token and origin", token: tok, origin: self, ok: true},
		{name: "no token", origin: self},
		{name: "wrong token", token: strings.Repeat("A", len(tok)), origin: self},
		{name: "other origin", token: tok, origin: "http://partner.test"},
		{name: "other port", token: tok, origin: "http://127.0.0.1:1"},
		{name: "no origin", token: tok},
	} {
		t.Run("ws "+tc.name, func(t *testing.T) {
			c, resp, err := dial(ctx, l, tc.token, tc.origin)
			if tc.ok {
				if err != nil {
					t.Fatalf("dial: %v", err)
				}
				c.Close()
				return
			}
			if err == nil {
				c.Close()
				t.Fatal("dial succeeded, want a refusal")
			}
			if resp == nil || resp.StatusCode != 403 {
				t.Fatalf("response = %v, want 403", resp)
			}
			if body, _ := io.ReadAll(resp.Body); len(body) != 0 {
				t.Errorf("refusal has a body: %q", body)
			}
		})
	}
	if !strings.Contains(logs.String(), "reason=origin") || !strings.Contains(logs.String(), "reason=token") {
		t.Errorf("logs do not name the refusals:\n%s", logs)
	}
}

// TestPartnerPageGetsNothing is the acceptance case: a page on partner.test,
// open in the agent's own browser, tries the live view's websocket and page,
// with and without the token, and gets nothing.
func TestPartnerPageGetsNothing(t *testing.T) {
	ctx := testContext(t)
	chromium.Browser(t) // skips under -short without Chromium, before the live view starts
	ctl := control.New(nil)
	l, logs := startLive(t, ctl, nil, nil)
	addr := liveAddr(l)
	tok := url.QueryEscape(l.token.Reveal())
	q := url.Values{
		"id": {"partner"},
		"ws": {"ws://" + addr + "/live/ws", "ws://" + addr + "/live/ws?token=" + tok},
		"fetch": {"http://" + addr + "/live", "http://" + addr + "/live?token=" + tok,
			"http://" + addr + "/live/ws?token=" + tok},
	}
	reports := testSite.report("partner")
	newPage(ctx, t, "http://partner.test/attack?"+q.Encode())
	var got string
	select {
	case got = <-reports:
	case <-ctx.Done():
		t.Fatal("the partner page reported nothing")
	}
	t.Logf("partner page got:\n%s", got)
	lines := strings.Split(got, "\n")
	if len(lines) != 2+2*3 {
		t.Fatalf("report has %d lines, want 8:\n%s", len(lines), got)
	}
	for _, line := range lines {
		kind, result, _ := strings.Cut(line, " ")
		switch {
		case kind == "ws" && (result == "error" || result == "closed" || result == "throw"):
		case kind == "fetch" && result == "error":
		case kind == "fetch-no-cors" && (result == "error" || result == "status:0:0"):
		default:
			t.Errorf("partner page obtained something: %q", line)
		}
	}
	if n := l.Clients(); n != 0 {
		t.Errorf("Clients() = %d, want 0", n)
	}
	// The websocket with the token was refused by the Origin check.
	if !strings.Contains(logs.String(), "path=/live/ws reason=origin") {
		t.Errorf("no origin refusal of the websocket in the logs:\n%s", logs)
	}
	if ctl.Holder() != "agent" {
		t.Error("the partner page changed the holder")
	}
	if n := strings.Count(logs.String(), "live view request refused"); n != 8 {
		t.Errorf("%d requests refused, want all 8 of the partner page's", n)
	}
}

func TestWriteURLFile(t *testing.T) {
	l, _ := startLive(t, control.New(nil), nil, nil)
	path := filepath.Join(t.TempDir(), "live-url")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := l.WriteURLFile(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), l.URL()+"\n"; got != want {
		t.Errorf("file = %q, want %q", got, want)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	if !strings.HasPrefix(l.URL(), "http://localhost:") || !strings.Contains(l.URL(), "/live?token=") {
		t.Errorf("URL = %q, want a loopback live URL, as localhost (a passkey's RP ID cannot be an IP)", l.URL())
	}
}

func TestShutdownClosesWebsockets(t *testing.T) {
	ctx := testContext(t)
	l, _ := startLive(t, control.New(nil), nil, nil)
	c := connect(ctx, t, l)
	next(ctx, t, c, false)
	if l.Clients() != 1 {
		t.Fatalf("Clients() = %d, want 1", l.Clients())
	}
	if err := l.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(deadline(ctx))
	if _, _, err := c.ReadMessage(); err == nil {
		t.Error("websocket still open after Shutdown")
	}
	if l.Clients() != 0 {
		t.Errorf("Clients() after Shutdown = %d", l.Clients())
	}
}

func deadline(ctx context.Context) time.Time { d, _ := ctx.Deadline(); return d }
