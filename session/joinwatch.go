package session

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
)

// Where the join is, as its requests show it.
const (
	stageLoading  = iota // the loopback page is loading; no POST yet
	stagePosted          // the credential was POSTed to the endpoint
	stageReturned        // the endpoint redirected to return_to, with a cookie
)

// joinWatch follows the browser's document requests during one join and
// refuses, before it is sent, the first one that breaks the protocol.
type joinWatch struct {
	b        JoinBrowser
	pageURL  string
	endpoint string
	returnTo string
	before   []Cookie
	refuse   context.CancelCauseFunc // ends the navigation

	mu      sync.Mutex
	stage   int
	refused error
}

// check judges r, a request of the join running under ctx: the
// [JoinBrowser.WatchRequests] callback, bound to the join's ctx.
func (w *joinWatch) check(ctx context.Context, r JoinRequest) bool {
	if !r.Document || r.URL == w.pageURL {
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.refused != nil:
		return false
	case w.stage == stageLoading:
		if r.Method == "POST" && sameURL(r.URL, w.endpoint) {
			w.stage = stagePosted
		}
		return true
	case w.stage == stageReturned:
		return true
	}
	// The request after the POST: the endpoint's redirect.
	var why error
	switch {
	case r.Method != "GET":
		why = fmt.Errorf("the browser-session endpoint answered a redirect that re-sends the credential (307 or 308) to %s; refused before it was sent", hostOf(r.URL))
	case !sameReturnTo(r.URL, w.returnTo):
		why = fmt.Errorf("the browser-session endpoint redirected to %s, not to return_to", describeURL(r.URL, w.returnTo))
	default:
		after, err := w.b.Cookies(ctx, w.returnTo)
		switch {
		case err != nil:
			why = fmt.Errorf("reading cookies after the join: %w", err)
		case !hasNewCookie(w.before, after):
			why = errors.New("the browser-session endpoint redirected to return_to but set no session cookie")
		}
	}
	if why != nil {
		w.refused = why
		w.refuse(why)
		return false
	}
	w.stage = stageReturned
	return true
}

// verdict judges where the join ended.
func (w *joinWatch) verdict(page *joinPage, finalURL string, status int, navErr error, c *Company) error {
	w.mu.Lock()
	refused, stage := w.refused, w.stage
	w.mu.Unlock()
	ok := status >= 200 && status <= 299
	switch {
	case refused != nil:
		return refused
	case navErr != nil:
		return fmt.Errorf("loading the join page: %w", navErr)
	case !page.served.Load():
		return errors.New("the browser never loaded the join page")
	case stage == stageLoading && sameOrigin(finalURL, page.url):
		return errors.New("the browser stayed on the join page (the form was not submitted)")
	case stage == stageLoading:
		return fmt.Errorf("the browser never posted the credential to the browser-session endpoint; it ended at %s", hostOf(finalURL))
	case stage == stagePosted && status >= 400 && status <= 499:
		return fmt.Errorf("the browser-session endpoint refused the credential (HTTP %d)", status)
	case stage == stagePosted:
		return fmt.Errorf("the browser-session endpoint answered HTTP %d, not a 303 redirect to return_to", status)
	case !c.IsCompanyURL(finalURL):
		return fmt.Errorf("the join ended off the Company's website, at %s", hostOf(finalURL))
	case !ok:
		return fmt.Errorf("the join ended on %s with HTTP %d", hostOf(finalURL), status)
	}
	return nil
}

// hasNewCookie reports whether after holds a cookie that before did not
// (by name and value): the endpoint set or replaced one.
func hasNewCookie(before, after []Cookie) bool {
	for _, a := range after {
		fresh := true
		for _, b := range before {
			if a.Name == b.Name && a.Value.Equal(b.Value) {
				fresh = false
				break
			}
		}
		if fresh {
			return true
		}
	}
	return false
}

// sameReturnTo reports whether got is the return_to URL the runtime gave
// (scheme and host case-insensitively, a trailing dot and the default port
// ignored; path and query exact; the fragment, which is never sent,
// ignored).
func sameReturnTo(got, want string) bool {
	g, errG := url.Parse(got)
	w, errW := url.Parse(want)
	if errG != nil || errW != nil {
		return false
	}
	return strings.EqualFold(g.Scheme, w.Scheme) && canonicalHost(g) == canonicalHost(w) &&
		g.EscapedPath() == w.EscapedPath() && g.RawQuery == w.RawQuery && g.User == nil
}

// canonicalHost is u's host, lower case, without a trailing dot or the
// https default port.
func canonicalHost(u *url.URL) string {
	h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if p := u.Port(); p != "" && p != "443" {
		return h + ":" + p
	}
	return h
}

// describeURL names where a redirect went without its query (which may hold
// tokens): the host, or the host and path when the host is return_to's.
func describeURL(raw, returnTo string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "an unparsable URL"
	}
	if r, err := url.Parse(returnTo); err == nil && canonicalHost(r) == canonicalHost(u) {
		return u.Host + u.EscapedPath()
	}
	return u.Host
}
