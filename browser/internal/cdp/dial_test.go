package cdp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"strings"
	"testing"
	"time"
)

const token = "tok-7Qz9-distinctive"

// TestRedactKeepsTheSentence: the text around a URL stays as it was.
func TestRedactKeepsTheSentence(t *testing.T) {
	err := fmt.Errorf("attaching to ws://127.0.0.1:3000/chromium?token=%s&launch={}: refused", token)
	if got, want := Redact(err).Error(), "attaching to ws://127.0.0.1:3000/chromium: refused"; got != want {
		t.Errorf("Redact gave %q, want %q", got, want)
	}
}

func TestRedact(t *testing.T) {
	tests := []struct {
		name string
		err  error
	}{
		{"text", fmt.Errorf("attaching to ws://u:pw@127.0.0.1:3000/chromium?token=%s&launch={}: refused", token)},
		{"url.Error", &neturl.Error{Op: "Get", URL: "http://127.0.0.1:1/json/version?token=" + token, Err: errors.New("connection refused")}},
		{"wrapped url.Error", fmt.Errorf("attaching: %w", &neturl.Error{Op: "Get", URL: "wss://pool/?token=" + token, Err: context.DeadlineExceeded})},
		{"path token", fmt.Errorf("attaching to wss://pool.example/devtools/browser/%s: refused", token)},
		{"path token after a word", fmt.Errorf("attaching to wss://pool.example/token/%s: refused", "abc"+token)},
		{"url.Error with a path token", &neturl.Error{Op: "Get", URL: "http://127.0.0.1:1/" + token + "/json/version", Err: errors.New("connection refused")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Redact(tc.err)
			if strings.Contains(got.Error(), token) || strings.Contains(got.Error(), "pw@") {
				t.Errorf("Redact left a secret in %q", got.Error())
			}
			var ue *neturl.Error
			if errors.As(got, &ue) && strings.Contains(ue.URL+ue.Error(), token) {
				t.Errorf("errors.As finds a *url.Error with the token: %q", ue.URL)
			}
			if errors.Is(tc.err, context.DeadlineExceeded) != errors.Is(got, context.DeadlineExceeded) {
				t.Errorf("Redact changed errors.Is(DeadlineExceeded)")
			}
		})
	}
}

// TestResolveWebSocketURLWithAPoolsQuery: /json/version is asked for at
// the base's path with its query (the pool's token), its status is
// checked, and the websocket URL the pool gives without a query gets the
// base's.
func TestResolveWebSocketURLWithAPoolsQuery(t *testing.T) {
	pool := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("token") != token {
			http.Error(w, "Not authorized", http.StatusUnauthorized)
			return
		}
		if r.URL.Path != "/chromium/json/version" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `{"webSocketDebuggerUrl": "ws://%s/devtools/browser/abc"}`, r.Host)
	}))
	defer pool.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	query := "token=" + token + "&launch=%7B%7D"
	for _, base := range []string{pool.URL + "/chromium?" + query, pool.URL + "/chromium/?" + query} {
		ws, err := resolveWebSocketURL(ctx, base)
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		if want := "ws://" + pool.Listener.Addr().String() + "/devtools/browser/abc?" + query; ws != want {
			t.Errorf("%s: websocket URL %q, want %q", base, ws, want)
		}
	}
	_, err := resolveWebSocketURL(ctx, pool.URL+"/chromium?token=wrong")
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("a refused token: error %v, want the pool's status", err)
	}
}

// TestDialErrorsRedacted: with the pool down, what Dial returns, once
// redacted, shows neither the token nor a *url.Error holding it.
func TestDialErrorsRedacted(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // the pool is down
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for _, url := range []string{"ws://" + addr + "/?token=" + token, "http://" + addr + "/?token=" + token} {
		_, err := Dial(ctx, url)
		if err == nil {
			t.Fatalf("%s: dialled a closed port", url)
		}
		red := Redact(err)
		if strings.Contains(red.Error(), token) {
			t.Errorf("%s: redacted error %q holds the token", url, red)
		}
		var ue *neturl.Error
		if errors.As(red, &ue) && strings.Contains(ue.URL, token) {
			t.Errorf("%s: errors.As finds the token in %q", url, ue.URL)
		}
		if !strings.Contains(red.Error(), addr) {
			t.Errorf("%s: redacted error %q no longer names the address", url, red)
		}
	}
}

// TestDialPoolRefusals: a pool that refuses the websocket (or its
// /json/version) with a status is reported by that status, in words, and
// never by its body, which here echoes the token as a careless proxy's
// would.
func TestDialPoolRefusals(t *testing.T) {
	tests := []struct {
		code int
		want string
	}{
		{http.StatusTooManyRequests, "the pool is full (it answered 429 Too Many Requests)"},
		{http.StatusRequestTimeout, "the pool's queue timed out (it answered 408 Request Timeout)"},
		{http.StatusUnauthorized, "the pool refused the credentials in the URL (it answered 401 Unauthorized)"},
		{http.StatusBadGateway, "the pool refused the connection (it answered 502 Bad Gateway)"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.code), func(t *testing.T) {
			pool := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.code)
				fmt.Fprintf(w, "refused %s for a body-secret", r.URL)
			}))
			defer pool.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			host := strings.TrimPrefix(pool.URL, "http://")
			for _, url := range []string{"ws://" + host + "/chromium?token=" + token, pool.URL + "/?token=" + token} {
				_, err := Dial(ctx, url)
				if err == nil {
					t.Fatalf("%s: attached to a pool that refused", url)
				}
				got := Redact(err).Error()
				if !strings.Contains(got, tc.want) {
					t.Errorf("%s: error %q, want it to say %q", url, got, tc.want)
				}
				if strings.Contains(got, "body-secret") || strings.Contains(got, token) {
					t.Errorf("%s: error %q quotes the pool's body or the token", url, got)
				}
			}
		})
	}
}
