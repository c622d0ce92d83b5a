package ui

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
)

// TestRouterServesEachLiveViewAtItsPath: two live views on one Router's
// listener, each at /live/INSTANCE/KEY with its own token: each page and
// websocket opens with its own token only, a link minted there is under
// its path, another instance's path gets 421, a key not held 404, and a
// live view shut down leaves 404 behind while the other keeps serving.
func TestRouterServesEachLiveViewAtItsPath(t *testing.T) {
	r := listeningRouter(t)
	open := func() *Live {
		t.Helper()
		l, err := NewLive(&LiveOptions{Router: r, Control: control.New(nil), Page: func() *browser.Page { return nil }})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Start(); err != nil {
			t.Fatal(err)
		}
		return l
	}
	a, b := open(), open()
	ua, _ := url.Parse(a.URL())
	ub, _ := url.Parse(b.URL())
	for _, u := range []*url.URL{ua, ub} {
		if u.Host != urlHost(r.Addr()) || !strings.HasPrefix(u.Path, "/live/rt-a/") || len(u.Path) != len("/live/rt-a/")+32 {
			t.Errorf("live view at %s, want on %s under /live/rt-a/KEY", u.Redacted(), r.Addr())
		}
	}
	if ua.Path == ub.Path {
		t.Fatal("two live views share a path")
	}
	link, err := a.MintLink("", true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(link.URL, "http://"+ua.Host+ua.Path+"/link/") {
		t.Errorf("A's link %q is not under A's path", strings.SplitN(link.URL, "/link/", 2)[0])
	}

	get := func(path, token string) int {
		t.Helper()
		u := *ua
		u.Path, u.RawQuery = path, url.Values{"token": {token}}.Encode()
		resp, err := http.Get(u.String())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get(InstanceHeader); got != "rt-a" {
			t.Errorf("GET %s: instance header %q", path, got)
		}
		return resp.StatusCode
	}
	ws := func(path, token string) int {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		c, resp, err := websocket.DefaultDialer.DialContext(ctx, "ws://"+ua.Host+path+"/ws?token="+url.QueryEscape(token),
			http.Header{"Origin": {"http://" + ua.Host}})
		if err == nil {
			var first map[string]any
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if err := c.ReadJSON(&first); err != nil || first["type"] != "state" {
				t.Errorf("websocket %s: first message %v (%v), want the state", path, first, err)
			}
			c.Close()
			return http.StatusSwitchingProtocols
		}
		if resp == nil {
			t.Fatal(err)
		}
		return resp.StatusCode
	}
	tokA, tokB := ua.Query().Get("token"), ub.Query().Get("token")
	keyA := strings.TrimPrefix(ua.Path, "/live/rt-a/")
	for _, c := range []struct {
		name string
		got  int
		want int
	}{
		{"A's page, A's token", get(ua.Path, tokA), http.StatusOK},
		{"A's page, B's token", get(ua.Path, tokB), http.StatusForbidden},
		{"A's websocket, A's token", ws(ua.Path, tokA), http.StatusSwitchingProtocols},
		{"A's websocket, B's token", ws(ua.Path, tokB), http.StatusForbidden},
		{"B's websocket, B's token", ws(ub.Path, tokB), http.StatusSwitchingProtocols},
		{"A's key under another instance", get("/live/rt-b/"+keyA, tokA), http.StatusMisdirectedRequest},
		{"a key not held", get("/live/rt-a/"+strings.Repeat("A", 32), tokA), http.StatusNotFound},
		{"no key", get("/live/rt-a/", tokA), http.StatusNotFound},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, c.got, c.want)
		}
	}

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := a.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if got := get(ua.Path, tokA); got != http.StatusNotFound {
		t.Errorf("A's page after A shut down: %d, want 404", got)
	}
	if got := ws(ub.Path, tokB); got != http.StatusSwitchingProtocols {
		t.Errorf("B's websocket after A shut down: %d", got)
	}
	if err := b.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if n := r.Len(); n != 0 {
		t.Errorf("the Router holds %d live views after both shut down", n)
	}
}

func TestCheckInstance(t *testing.T) {
	for name, ok := range map[string]bool{
		"rt0": true, "poppy-1": true, "a_b": true, "A": true, strings.Repeat("a", 63): true,
		"": false, "-rt": false, "rt.0": false, "rt/0": false, "rt 0": false, strings.Repeat("a", 64): false, "ünï": false,
	} {
		if err := CheckInstance(name); (err == nil) != ok {
			t.Errorf("CheckInstance(%q) = %v, want ok %v", name, err, ok)
		}
	}
}

// TestLiveOnARouterNotListening: a live view cannot start on a Router that
// has no listener yet; it says so instead of failing the process.
func TestLiveOnARouterNotListening(t *testing.T) {
	r, err := NewRouter("rt-a", nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewLive(&LiveOptions{Router: r, Control: control.New(nil), Page: func() *browser.Page { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(); err == nil {
		t.Error("a live view started on a Router that serves nowhere")
	}
	if l.URL() != "" || r.Len() != 0 {
		t.Errorf("after the failed start: URL %q, Router holds %d", l.URL(), r.Len())
	}
}

// TestLiveOnARouterIgnoresAddr: on a Router, a live view's Addr is unused,
// so an Addr that would be refused for a listener of its own (every
// interface over plain HTTP) does not refuse it: the Router's listener is
// what serves it, checked where it is made.
func TestLiveOnARouterIgnoresAddr(t *testing.T) {
	r, err := NewRouter("rt-a", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewLive(&LiveOptions{Router: r, Addr: "0.0.0.0:7999", Control: control.New(nil), Page: func() *browser.Page { return nil }}); err != nil {
		t.Errorf("a live view on a Router refused for its unused Addr: %v", err)
	}
	if _, err := NewLive(&LiveOptions{Addr: "0.0.0.0:7999", Control: control.New(nil), Page: func() *browser.Page { return nil }}); err == nil {
		t.Error("a live view of its own on every interface over plain HTTP was not refused")
	}
}

// TestRouterKeepsHostAndOriginRules: on a Router's listener a live view
// refuses, with its own token, a request under another Host (DNS
// rebinding), a websocket from another origin and a fetch from another
// site, as on a listener of its own.
func TestRouterKeepsHostAndOriginRules(t *testing.T) {
	r := listeningRouter(t)
	l, err := NewLive(&LiveOptions{Router: r, Control: control.New(nil), Page: func() *browser.Page { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Shutdown(context.Background()) })
	u, _ := url.Parse(l.URL())
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	get := func(host string, h http.Header) int {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		req.Header = h
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := get("", http.Header{}); got != http.StatusOK {
		t.Fatalf("the page with its token: %d", got)
	}
	if got := get("rebound.example:"+u.Port(), http.Header{}); got != http.StatusForbidden {
		t.Errorf("the page under another Host: %d, want 403", got)
	}
	if got := get("", http.Header{"Sec-Fetch-Site": {"cross-site"}, "Sec-Fetch-Mode": {"cors"}, "Sec-Fetch-Dest": {"empty"}}); got != http.StatusForbidden {
		t.Errorf("a fetch of the page from another site: %d, want 403", got)
	}
	wsURL := "ws://" + u.Host + u.Path + "/ws?" + u.RawQuery
	for name, h := range map[string]http.Header{
		"another origin": {"Origin": {"https://evil.example"}},
		// A rebound name: the attacker's page and Host are its own.
		"another Host": {"Host": {"rebound.example:" + u.Port()}, "Origin": {"http://rebound.example:" + u.Port()}},
	} {
		c, resp, err := websocket.DefaultDialer.DialContext(ctx, wsURL, h)
		if err == nil {
			c.Close()
			t.Errorf("websocket from %s: connected", name)
			continue
		}
		if resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("websocket from %s: %v (%v), want 403", name, err, resp)
		}
	}
}

// listeningRouter is a Router for instance rt-a listening on a loopback
// port, shut down when t ends.
func listeningRouter(t *testing.T) *Router {
	t.Helper()
	r, err := NewRouter("rt-a", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Listen("127.0.0.1:0", nil, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	return r
}
