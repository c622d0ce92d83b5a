package session

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"
)

// JoinBrowser is the part of the browser the join needs.
type JoinBrowser interface {
	// Navigate loads url in the main tab and waits for the load; it returns
	// the final URL and the HTTP status of the final main document. It
	// returns early, with an error, when ctx ends.
	//
	// The join page submits a form by itself as soon as it is parsed, so
	// "the load" here is the document the browser settles on after that
	// POST and its redirect, not the join page itself.
	Navigate(ctx context.Context, url string) (finalURL string, status int, err error)
	// WatchRequests calls check for every request the browser is about to
	// send, from now until stop is called, before anything of it is sent
	// (a redirect hop is a new request); check returns false to refuse it:
	// the browser sends nothing and does not navigate there. check is
	// quick and may be called from several goroutines.
	WatchRequests(ctx context.Context, check func(JoinRequest) bool) (stop func(), err error)
	// Cookies returns the cookies the browser would send to url.
	Cookies(ctx context.Context, url string) ([]Cookie, error)
	// ClearCookies removes every cookie from the browser, so a failed join
	// leaves no half-made session behind.
	ClearCookies(ctx context.Context) error
}

// JoinRequest is a request of the browser as [JoinBrowser.WatchRequests]
// shows it.
type JoinRequest struct {
	Method string
	URL    string
	// Document is true for a request that loads a frame's document (a
	// navigation or a redirect of one), false for a subresource.
	Document bool
}

// Cookie is a browser cookie; its value is a secret.
type Cookie struct {
	Name  string
	Value Secret
}

// JoinOptions configures [Join]. The zero value (or nil) is ready to use.
type JoinOptions struct {
	// Logger gets one line per join; nil discards. It never gets the credential.
	Logger *slog.Logger
}

// shutdownTimeout bounds the loopback server's shutdown, and clearing
// cookies after a failed join, both of which run even when ctx is done.
const shutdownTimeout = 2 * time.Second

// Join joins the browser b to the Session with Company c (draft 0.1 shape,
// see the package documentation), and leaves the browser on returnTo.
//
// returnTo must be an https URL on the Company's website; it is checked
// before any request. Join then gets a fresh credential from src, serves a
// one-shot page on a fresh loopback listener that POSTs the credential to
// c.Endpoint as the form field "assertion", and has b load that page.
//
// The join succeeded only when the endpoint answered with a redirect to
// returnTo itself (the 303 of the notes: the browser follows it with a GET)
// after setting a cookie the browser will send to returnTo, and the browser
// then ends on the Company's website with a 2xx status. Join watches the
// browser's requests to see this: the request after the POST is the
// endpoint's redirect. A redirect that keeps the POST (307, 308) is refused
// before the browser re-sends the credential; a redirect elsewhere, or one
// to returnTo without a new cookie, is refused before the browser goes
// there. Otherwise Join clears the browser's cookies and returns one line
// beginning "joining NAME (DOMAIN): " that says what the Company answered.
//
// The loopback server is shut down before Join returns, whatever happens.
func Join(ctx context.Context, b JoinBrowser, c *Company, src CredentialSource, returnTo string, opts *JoinOptions) error {
	if c == nil {
		return errors.New("joining: no company")
	}
	if err := join(ctx, b, c, src, returnTo, opts); err != nil {
		return fmt.Errorf("joining %s: %w", c.label(), err)
	}
	return nil
}

func join(ctx context.Context, b JoinBrowser, c *Company, src CredentialSource, returnTo string, opts *JoinOptions) error {
	logger := slog.New(slog.DiscardHandler)
	if opts != nil && opts.Logger != nil {
		logger = opts.Logger
	}
	if c.Endpoint == "" {
		return errors.New("the company has no browser-session endpoint (was it discovered?)")
	}
	if u, err := url.Parse(returnTo); err != nil || u.Scheme != "https" || !c.IsCompanyURL(returnTo) {
		return fmt.Errorf("return_to %q is not an https URL on the Company's website", returnTo)
	}
	cred, err := src.Credential(ctx, CredentialRequest{Endpoint: c.Endpoint, ReturnTo: returnTo, Domain: c.Domain})
	if err != nil {
		return fmt.Errorf("getting a credential: %w", err)
	}
	if cred.IsZero() {
		return errors.New("getting a credential: the source returned an empty credential")
	}

	before, err := b.Cookies(ctx, returnTo)
	if err != nil {
		return fmt.Errorf("reading cookies: %w", err)
	}
	page, err := startJoinPage(c.Endpoint, cred)
	if err != nil {
		return err
	}
	defer page.close(ctx)

	navCtx, stopNav := context.WithCancelCause(ctx)
	defer stopNav(nil)
	w := &joinWatch{b: b, pageURL: page.url, endpoint: c.Endpoint, returnTo: returnTo, before: before, refuse: stopNav}
	stopWatch, err := b.WatchRequests(ctx, func(r JoinRequest) bool { return w.check(ctx, r) })
	if err != nil {
		return fmt.Errorf("watching the join: %w", err)
	}
	finalURL, status, navErr := b.Navigate(navCtx, page.url)
	stopWatch()
	err = w.verdict(page, finalURL, status, navErr, c)
	if err != nil {
		clearCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
		defer cancel()
		if clearErr := b.ClearCookies(clearCtx); clearErr != nil {
			err = fmt.Errorf("%w; clearing cookies also failed: %v", err, clearErr)
		}
		return err
	}
	logger.Info("joined", "domain", c.Domain, "url", finalURL, "status", status)
	return nil
}

// joinPage is the one-shot loopback server that hands the credential to
// the browser.
type joinPage struct {
	url    string
	srv    *http.Server
	served atomic.Bool
}

// joinTemplate auto-submits the credential. html/template escapes the
// endpoint and the credential into their attributes.
var joinTemplate = template.Must(template.New("join").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>Joining…</title></head>
<body>
<form method="post" action="{{.Endpoint}}" enctype="application/x-www-form-urlencoded">
<input type="hidden" name="assertion" value="{{.Assertion}}">
<noscript><button type="submit">Continue</button></noscript>
</form>
<script>document.forms[0].submit();</script>
</body></html>
`))

// startJoinPage listens on a fresh loopback port and serves the page once,
// at a random path; every other request, and the second one, gets 404.
func startJoinPage(endpoint string, cred Secret) (*joinPage, error) {
	secretPath, err := randomHex(16)
	if err != nil {
		return nil, fmt.Errorf("starting the join page: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting the join page: %w", err)
	}
	p := &joinPage{url: "http://" + ln.Addr().String() + "/join/" + secretPath}
	path, host := "/join/"+secretPath, ln.Addr().String()
	p.srv = &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       10 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("Referrer-Policy", "no-referrer")
			if r.Method != http.MethodGet || r.URL.Path != path || r.Host != host || !p.served.CompareAndSwap(false, true) {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			_ = joinTemplate.Execute(w, struct{ Endpoint, Assertion string }{endpoint, cred.Reveal()})
		}),
	}
	p.srv.SetKeepAlivesEnabled(false)
	go func() { _ = p.srv.Serve(ln) }() // returns ErrServerClosed on close
	return p, nil
}

// close shuts the server down, even when ctx is already cancelled.
func (p *joinPage) close(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := p.srv.Shutdown(ctx); err != nil {
		_ = p.srv.Close()
	}
}

// sameOrigin reports whether a and b share scheme and host.
func sameOrigin(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return errA == nil && errB == nil && ua.Scheme == ub.Scheme && ua.Host == ub.Host
}

// sameURL reports whether a and b name the same resource, ignoring query
// and fragment.
func sameURL(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return errA == nil && errB == nil && ua.Scheme == ub.Scheme && ua.Host == ub.Host && ua.Path == ub.Path
}

// hostOf returns the host of raw, or a placeholder; never the full URL.
func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return "an unparsable URL"
}
