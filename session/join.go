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
	// the final URL and the HTTP status of the final main document.
	//
	// The join page submits a form by itself as soon as it is parsed, so
	// "the load" here is the document the browser settles on after that
	// POST and its redirect, not the join page itself.
	Navigate(ctx context.Context, url string) (finalURL string, status int, err error)
	// ClearCookies removes every cookie from the browser, so a failed join
	// leaves no half-made session behind.
	ClearCookies(ctx context.Context) error
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
// c.Endpoint as the form field "assertion", and has b load that page. The
// join succeeded when the browser ends on the Company's website with a 2xx
// status (the endpoint answered 303 to return_to). Otherwise Join clears the
// browser's cookies and returns an error beginning "joining DOMAIN: ".
//
// The loopback server is shut down before Join returns, whatever happens.
func Join(ctx context.Context, b JoinBrowser, c *Company, src CredentialSource, returnTo string, opts *JoinOptions) error {
	if c == nil {
		return errors.New("joining: no company")
	}
	if err := join(ctx, b, c, src, returnTo, opts); err != nil {
		return fmt.Errorf("joining %s: %w", c.Domain, err)
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

	page, err := startJoinPage(c.Endpoint, cred)
	if err != nil {
		return err
	}
	defer page.close(ctx)

	finalURL, status, navErr := b.Navigate(ctx, page.url)
	switch {
	case navErr != nil:
		err = fmt.Errorf("loading the join page: %w", navErr)
	case !page.served.Load():
		err = errors.New("the browser never loaded the join page")
	case sameOrigin(finalURL, page.url):
		err = errors.New("the browser stayed on the join page (the form was not submitted)")
	case !c.IsCompanyURL(finalURL):
		err = fmt.Errorf("the join ended off the Company's website, at %s", hostOf(finalURL))
	case (status < 200 || status > 299) && sameURL(finalURL, c.Endpoint):
		err = fmt.Errorf("the browser-session endpoint refused the credential (HTTP %d)", status)
	case status < 200 || status > 299:
		err = fmt.Errorf("the join ended on %s with HTTP %d", hostOf(finalURL), status)
	}
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
