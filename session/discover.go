package session

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/poppy-browser/poppy-browser/spec"
)

// Discovery limits.
const (
	// MaxRedirects is how many redirects discovery follows, each to HTTPS.
	MaxRedirects = 5
	// MaxDocumentSize is the largest poppy.json discovery reads.
	MaxDocumentSize = 1 << 20
	// DiscoveryTimeout bounds discovery when [Discover] is given no client.
	DiscoveryTimeout = 20 * time.Second
)

// redirectError is a refused redirect; it is reported as it is, without the
// URL error wrapped around it by net/http.
type redirectError struct{ msg string }

func (e *redirectError) Error() string { return e.msg }

// Discover fetches and validates the poppy.json of company, a domain
// ("airline.test") or an https URL whose host is used, and returns the
// Company a browser joins.
//
// It GETs https://{domain}/.well-known/poppy.json with client, following at
// most [MaxRedirects] redirects, each to an HTTPS URL, and reads at most
// [MaxDocumentSize] bytes. The document speaks for the domain asked for,
// wherever the redirects ended: its organization.domain must match it. The
// document must declare browser-control v1 and an HTTPS
// web.browser_session_endpoint, and organization.domain must not be a public
// suffix. Warnings are what [spec.ParseDocument] reports about an acceptable
// document (the older extension shape, malformed entries): the caller shows
// them to the user. A company with userinfo in its URL is refused; an IDN is
// accepted in Unicode or punycode, and fetched in punycode.
//
// client is not changed (a copy gets the redirect policy); nil means an
// [http.Client] with a [DiscoveryTimeout]. Every error is one line
// beginning "discovering DOMAIN: ", DOMAIN as a person reads it (an IDN in
// Unicode).
func Discover(ctx context.Context, client *http.Client, company string) (*Company, []spec.Warning, error) {
	target, err := parseCompany(company, false)
	if err != nil {
		return nil, nil, fmt.Errorf("discovering %s: %w", company, err)
	}
	c, warnings, err := discover(ctx, client, target)
	if err != nil {
		return nil, nil, fmt.Errorf("discovering %s: %w", displayDomain(target.domain), err)
	}
	return c, warnings, nil
}

// CheckCompany reports, without any I/O, whether Discover could take
// company at all (a domain or an https URL, never an IP literal), with the
// error Discover would give.
func CheckCompany(company string) error {
	if _, err := parseCompany(company, false); err != nil {
		return fmt.Errorf("discovering %s: %w", company, err)
	}
	return nil
}

func discover(ctx context.Context, client *http.Client, target companyTarget) (*Company, []spec.Warning, error) {
	body, err := fetchDocument(ctx, client, "https://"+target.host+spec.WellKnownPath)
	if err != nil {
		return nil, nil, err
	}
	doc, warnings, err := spec.ParseDocument(body, target.domain)
	if err != nil {
		return nil, nil, err
	}
	if err := doc.RequireBrowserControl(); err != nil {
		return nil, nil, err
	}
	// spec has checked that the endpoint is https on organization.domain,
	// which it has normalised.
	return &Company{
		Domain:     doc.Organization.Domain,
		Name:       doc.Organization.Name,
		Endpoint:   doc.Web.BrowserSessionEndpoint,
		Extensions: []spec.Extension{spec.BrowserControlV1()},
	}, warnings, nil
}

// fetchDocument GETs u under the HTTPS-only redirect policy and returns the
// body of a 200 answer.
func fetchDocument(ctx context.Context, client *http.Client, u string) ([]byte, error) {
	c := defaultClient(client)
	c.CheckRedirect = checkRedirect
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		err = fetchFailure(u, err)
		// A refused redirect or certificate does not pass by waiting.
		var re *redirectError
		var ce *tls.CertificateVerificationError
		var he x509.HostnameError
		if errors.As(err, &re) || errors.As(err, &ce) || errors.As(err, &he) || ctx.Err() != nil {
			return nil, err
		}
		return nil, unreachable{err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("GET %s: HTTP %d", resp.Request.URL.Redacted(), resp.StatusCode)
		switch resp.StatusCode {
		case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusBadGateway,
			http.StatusServiceUnavailable, http.StatusGatewayTimeout, http.StatusInternalServerError:
			return nil, unreachable{err}
		}
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxDocumentSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", resp.Request.URL.Redacted(), err)
	}
	if len(body) > MaxDocumentSize {
		return nil, fmt.Errorf("poppy.json is larger than %d bytes", MaxDocumentSize)
	}
	return body, nil
}

// defaultClient is a copy of client, or a client with a [DiscoveryTimeout].
func defaultClient(client *http.Client) http.Client {
	if client == nil {
		return http.Client{Timeout: DiscoveryTimeout}
	}
	return *client
}

// checkRedirect allows at most MaxRedirects hops, each to HTTPS.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return &redirectError{fmt.Sprintf("more than %d redirects", MaxRedirects)}
	}
	if req.URL.Scheme != "https" {
		return &redirectError{fmt.Sprintf("redirect from %s to %s leaves HTTPS",
			via[len(via)-1].URL.Redacted(), req.URL.Redacted())}
	}
	return nil
}

// ErrUnreachable is in the chain of a [Discover] error whose cause may
// pass: the Company's site did not answer (no connection, a timeout) or
// answered that it is down (HTTP 408, 429, 500, 502, 503, 504); not a
// certificate the client refuses nor a refused redirect. Trying
// again later may succeed; any other discovery error stays until the
// Company changes its site.
var ErrUnreachable = errors.New("the Company's site did not answer")

// unreachable is a discovery error that matches ErrUnreachable and reads
// as its cause.
type unreachable struct{ err error }

func (u unreachable) Error() string        { return u.err.Error() }
func (u unreachable) Unwrap() error        { return u.err }
func (u unreachable) Is(target error) bool { return target == ErrUnreachable }

// fetchFailure turns a client error into one line without net/http's
// repetition of the method and URL around a refused redirect.
func fetchFailure(u string, err error) error {
	var re *redirectError
	if errors.As(err, &re) {
		return re
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("GET %s: %w", u, ue.Err)
	}
	return fmt.Errorf("GET %s: %w", u, err)
}
