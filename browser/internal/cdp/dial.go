package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/poppy-browser/poppy-browser/internal/secret"
)

// RedactURL drops a DevTools URL's query, user info and fragment, and
// redacts each path segment that is not a plain word (a browser pool's
// token travels in the query or the path: /devtools/browser/ID,
// /token/T), for errors ([secret.RedactURL]).
func RedactURL(raw string) string {
	if _, err := neturl.Parse(raw); err != nil {
		return "the DevTools URL"
	}
	return secret.RedactURL(raw)
}

// urlInText finds the URLs an error's text may carry.
var urlInText = regexp.MustCompile(`(?i)\b(?:wss?|https?)://[^\s"'<>]+`)

// Redact returns err with every URL in its text redacted ([RedactURL]); a
// *url.Error in its chain (the dialer's, which quotes the whole URL) is
// replaced by a redacted copy, so errors.As finds no secret either.
// errors.Is still matches the sentinels the chain holds.
func Redact(err error) error {
	if err == nil {
		return nil
	}
	text := urlInText.ReplaceAllStringFunc(err.Error(), func(u string) string {
		// The match runs on over the punctuation after a URL ("URL: cause").
		bare := strings.TrimRight(u, ":,;.)")
		return RedactURL(bare) + u[len(bare):]
	})
	return &redacted{text: text, cause: scrubChain(err)}
}

type redacted struct {
	text  string
	cause error
}

func (e *redacted) Error() string { return e.text }
func (e *redacted) Unwrap() error { return e.cause }

// scrubChain rebuilds a chain of single wraps with each *url.Error's URL
// redacted; a chain it cannot rebuild (a join, an unknown wrapper holding
// a *url.Error) is cut below the text, which Redact has already cleaned.
func scrubChain(err error) error {
	var ue *neturl.Error
	if !errors.As(err, &ue) {
		return err
	}
	if e, ok := err.(*neturl.Error); ok {
		return &neturl.Error{Op: e.Op, URL: RedactURL(e.URL), Err: scrubChain(e.Err)}
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return s
		}
	}
	return nil
}

// sentinels are the failures a caller matches with errors.Is and that a
// cut chain must keep.
var sentinels = []error{ErrBrowserGone, ErrFrameGone, context.DeadlineExceeded, context.Canceled}

// Dial connects to a browser's DevTools websocket: a ws(s):// URL as it
// is, an http(s):// endpoint through its /json/version. Its errors may
// quote url whole: whoever shows them redacts them first ([Redact]).
func Dial(ctx context.Context, url string) (chromedp.Transport, error) {
	ws := url
	if strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "https://") {
		var err error
		if ws, err = resolveWebSocketURL(ctx, url); err != nil {
			return nil, fmt.Errorf("attaching to %s: %w", url, err)
		}
	}
	c, err := remote.DialContext(ctx, ws)
	if err != nil {
		if r, ok := handshakeRefusal(err); ok {
			err = r
		}
		return nil, fmt.Errorf("attaching to %s: %w", url, err)
	}
	return c, nil
}

// refusal is a pool's (or proxy's) answer other than the websocket or
// /json/version: its status, said in words, without its body, which may
// echo the request (a URL with its token) and reaches the model.
type refusal struct {
	code   int
	status string // "429 Too Many Requests"
}

func (r refusal) Error() string {
	switch r.code {
	case http.StatusTooManyRequests:
		return "the pool is full (it answered " + r.status + ")"
	case http.StatusRequestTimeout:
		return "the pool's queue timed out (it answered " + r.status + ")"
	case http.StatusUnauthorized, http.StatusForbidden:
		return "the pool refused the credentials in the URL (it answered " + r.status + ")"
	case http.StatusServiceUnavailable:
		return "the pool is unavailable (it answered " + r.status + ")"
	}
	return "the pool refused the connection (it answered " + r.status + ")"
}

// handshakeStatus finds the status in the websocket dialer's handshake
// error (`...: unexpected status "429 Too Many Requests", body "..."`):
// the dialer keeps it in the text only.
var handshakeStatus = regexp.MustCompile(`unexpected status "(([1-5][0-9]{2})[^"]{0,60})"`)

// handshakeRefusal turns a handshake the server answered with a status
// into a [refusal], dropping the body the dialer quotes.
func handshakeRefusal(err error) (refusal, bool) {
	m := handshakeStatus.FindStringSubmatch(err.Error())
	if m == nil {
		return refusal{}, false
	}
	code, _ := strconv.Atoi(m[2])
	return refusal{code: code, status: m[1]}, true
}

// resolveWebSocketURL asks a DevTools HTTP endpoint for its browser
// websocket. /json/version is looked up beside the base's path, with its
// query kept (a pool's token and launch options travel there), and the
// websocket URL it returns gets the base's query when it has none (a pool
// answers with its own address, without the token).
func resolveWebSocketURL(ctx context.Context, base string) (string, error) {
	u, err := neturl.Parse(base)
	if err != nil {
		return "", errors.New("the DevTools URL does not parse")
	}
	version := *u
	version.Path = strings.TrimSuffix(u.Path, "/") + "/json/version"
	version.RawPath, version.Fragment = "", ""
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, version.String(), nil)
	if err != nil {
		return "", err
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("reading /json/version: %w", refusal{code: resp.StatusCode, status: resp.Status})
	}
	var v struct {
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&v); err != nil {
		return "", fmt.Errorf("reading /json/version: %w", err)
	}
	if v.WebSocketDebuggerURL == "" {
		return "", errors.New("no webSocketDebuggerUrl in /json/version")
	}
	ws, err := neturl.Parse(v.WebSocketDebuggerURL)
	if err != nil {
		return "", errors.New("/json/version gave a webSocketDebuggerUrl that does not parse")
	}
	if ws.RawQuery == "" && u.RawQuery != "" {
		ws.RawQuery = u.RawQuery
	}
	return ws.String(), nil
}

// Accepts reports whether the host of a DevTools URL takes a TCP
// connection now (within a second): a pool that does, yet answered no
// handshake in time, holds the connection in its queue.
func Accepts(ctx context.Context, url string) bool {
	u, err := neturl.Parse(url)
	if err != nil || u.Hostname() == "" {
		return false
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "wss" || u.Scheme == "https" {
			port = "443"
		}
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	c, err := (&net.Dialer{}).DialContext(ctx, "tcp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		return false
	}
	c.Close()
	return true
}
