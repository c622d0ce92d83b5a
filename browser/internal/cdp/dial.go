package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"strings"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
)

// RedactURL drops a DevTools URL's query and user info (a browser pool's
// token travels there), for errors.
func RedactURL(raw string) string {
	u, err := neturl.Parse(raw)
	if err != nil {
		return "the DevTools URL"
	}
	u.RawQuery, u.User, u.Fragment = "", nil, ""
	return u.String()
}

// Dial connects to a browser's DevTools websocket: a ws:// URL as it is, an
// http(s):// endpoint through its /json/version.
func Dial(ctx context.Context, url string) (chromedp.Transport, error) {
	ws := url
	if strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "https://") {
		var err error
		if ws, err = resolveWebSocketURL(ctx, url); err != nil {
			return nil, fmt.Errorf("attaching to %s: %w", RedactURL(url), err)
		}
	}
	c, err := remote.DialContext(ctx, ws)
	if err != nil {
		return nil, fmt.Errorf("attaching to %s: %w", RedactURL(url), err)
	}
	return c, nil
}

// resolveWebSocketURL asks a DevTools HTTP endpoint for its browser websocket.
func resolveWebSocketURL(ctx context.Context, base string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/json/version", nil)
	if err != nil {
		return "", err
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		var ue *neturl.Error
		if errors.As(err, &ue) {
			return "", ue.Err // its URL may carry the pool's token
		}
		return "", err
	}
	defer resp.Body.Close()
	var v struct {
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&v); err != nil {
		return "", fmt.Errorf("reading /json/version: %w", err)
	}
	if v.WebSocketDebuggerURL == "" {
		return "", errors.New("no webSocketDebuggerUrl in /json/version")
	}
	return v.WebSocketDebuggerURL, nil
}
