package browser_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
)

const poolToken = "pool-tok-Xq81-distinctive"

// poolStandIn answers like Browserless in front of a real Chromium: every
// request needs ?token=poolToken; /json/version (at the path the client
// was given, /chromium) names a websocket on the pool's own address with
// no query; the websocket is proxied to the Chromium.
func poolStandIn(t *testing.T, chromium *browsertest.Chromium) *httptest.Server {
	t.Helper()
	ws, err := neturl.Parse(chromium.URL)
	if err != nil {
		t.Fatal(err)
	}
	upstream := &neturl.URL{Scheme: "http", Host: ws.Host}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(upstream)
		r.Out.URL.RawQuery = ""
		r.Out.Host = upstream.Host
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("token") != poolToken {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		if r.URL.Path == "/chromium/json/version" {
			fmt.Fprintf(w, `{"Browser": "stand-in", "webSocketDebuggerUrl": "ws://%s%s"}`, r.Host, ws.Path)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestAttachThroughAPool: both URL forms a pool hands out attach through a
// pool that needs a token in the query: ws:// as given, and http:// whose
// /json/version answers a websocket URL without the token.
func TestAttachThroughAPool(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	pool := poolStandIn(t, browsertest.StartChromium(t, ctx, &browsertest.ChromiumOptions{Args: []string{testHosts.args[0]}}))
	query := "?token=" + poolToken + "&launch=" + neturl.QueryEscape(`{"args":["--lang=en"]}`)
	var wsURL string
	{
		resp, err := http.Get(pool.URL + "/chromium/json/version" + query)
		if err != nil {
			t.Fatal(err)
		}
		var v struct{ WebSocketDebuggerURL string }
		err = json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		wsURL = v.WebSocketDebuggerURL + query
	}
	for _, u := range []string{pool.URL + "/chromium" + query, wsURL} {
		b, err := browser.Launch(ctx, &browser.Options{CDPURL: u})
		if err != nil {
			t.Fatalf("attaching through the pool with %s: %v", strings.ReplaceAll(u, poolToken, "TOKEN"), err)
		}
		p, err := b.NewPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Navigate(ctx, "http://company.test/"); err != nil {
			t.Errorf("navigating through the pool: %v", err)
		}
		if err := b.Close(); err != nil {
			t.Errorf("closing: %v", err)
		}
	}
}

// TestPoolErrorsCarryNoToken: with a wrong token and with the pool down,
// Launch fails naming the pool's address and status, and neither its text
// nor any error in its chain holds the token.
func TestPoolErrorsCarryNoToken(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
	}))
	defer refusing.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := l.Addr().String()
	l.Close()
	q := "?token=" + poolToken
	for _, tc := range []struct{ url, want string }{
		{refusing.URL + "/chromium" + q, "401"},
		{"ws://" + down + "/chromium" + q, down},
		{"http://" + down + "/chromium" + q, down},
		{"ws://user:" + poolToken + "@" + down + "/", down},
	} {
		_, err := browser.Launch(ctx, &browser.Options{CDPURL: tc.url, ConnectTimeout: 5 * time.Second})
		if err == nil {
			t.Fatalf("attached to %s", tc.want)
		}
		if strings.Contains(err.Error(), poolToken) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %q: want %q named and no token", err, tc.want)
		}
		var ue *neturl.Error
		if errors.As(err, &ue) && strings.Contains(ue.URL, poolToken) {
			t.Errorf("errors.As finds the token in a *url.Error: %s", strings.ReplaceAll(ue.URL, poolToken, "TOKEN"))
		}
	}
}
