package ui

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/poppy-browser/poppy-browser/internal/loopback"
)

// remote is how the live view is reached from other machines: over its
// own TLS, or behind a reverse proxy at a public https origin. The zero
// value is plain HTTP on loopback.
type remote struct {
	cert   *tls.Certificate // serve TLS with it
	public *url.URL         // the proxy's public origin (https://host[:port])
	// embed are the origins that may frame the live view (the Personal
	// Agent's own app); none may when empty.
	embed []string
}

// CheckServing reports, without I/O, why the live view must not serve at
// addr with opts' TLSCert, TLSKey and PublicURL: an address other
// machines can reach needs TLS or a proxy's public https origin. The error
// is one line saying what to add.
func CheckServing(addr string, opts *LiveOptions) error {
	if (opts.TLSCert == "") != (opts.TLSKey == "") {
		return errors.New("the live view's TLS needs both --live-tls-cert and --live-tls-key")
	}
	if opts.PublicURL != "" {
		u, err := url.Parse(opts.PublicURL)
		if err != nil || u.Scheme != "https" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
			return fmt.Errorf("--live-behind-proxy %q: want the proxy's public https origin, like https://agent.example.com", opts.PublicURL)
		}
	}
	for _, o := range opts.EmbedOrigins {
		if _, err := embedOrigin(o); err != nil {
			return err
		}
		if opts.TLSCert == "" && opts.PublicURL == "" {
			return errors.New("--live-embed-origin needs the live view over https: add --live-tls-cert and --live-tls-key, or --live-behind-proxy")
		}
	}
	if opts.InsecureTakeByLink && (opts.TLSCert != "" || !insecureAllowed(addr, opts)) {
		return errors.New("--insecure-take-by-link is refused on a live view other machines can reach: only on a loopback --live address, without TLS or a proxy")
	}
	if opts.TLSCert == "" && opts.PublicURL == "" && addr != "" && !loopback.Addr(addr) { // "" is 127.0.0.1:0
		return fmt.Errorf("the live view at %s is reachable from other machines over plain HTTP: add --live-tls-cert and --live-tls-key, or --live-behind-proxy https://YOUR-PUBLIC-ORIGIN, or listen on 127.0.0.1", addr)
	}
	return nil
}

// newRemote checks the serving options (CheckServing) and loads the
// certificate.
func newRemote(addr string, opts *LiveOptions) (remote, error) {
	var r remote
	if err := CheckServing(addr, opts); err != nil {
		return r, err
	}
	if opts.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(opts.TLSCert, opts.TLSKey)
		if err != nil {
			return r, fmt.Errorf("loading the live view's TLS certificate: %w", err)
		}
		r.cert = &cert
	}
	if opts.PublicURL != "" {
		u, _ := url.Parse(opts.PublicURL) // checked
		r.public = &url.URL{Scheme: "https", Host: strings.ToLower(u.Host)}
	}
	for _, o := range opts.EmbedOrigins {
		e, _ := embedOrigin(o) // checked
		r.embed = append(r.embed, e)
	}
	return r, nil
}

// secure reports whether the User reaches the live view over https.
func (r remote) secure() bool { return r.cert != nil || r.public != nil }

// scheme is the scheme the User's browser uses.
func (r remote) scheme() string {
	if r.secure() {
		return "https"
	}
	return "http"
}

// selfOrigin is the origin a request to host must come from: the proxy's
// public origin behind one, else this server's own.
func (r remote) selfOrigin(host string) string {
	if r.public != nil {
		return r.public.String()
	}
	return r.scheme() + "://" + host
}

// embedOrigin is o as a CSP source: an https origin, nothing more.
func embedOrigin(o string) (string, error) {
	u, err := url.Parse(o)
	if err != nil || u.Scheme != "https" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil ||
		strings.ContainsAny(u.Host, " ;,'*") {
		return "", fmt.Errorf("--live-embed-origin %q: want an https origin, like https://app.example.com", o)
	}
	return "https://" + strings.ToLower(u.Host), nil
}

// frameAncestors is the CSP frame-ancestors value: exactly the embedding
// origins, or 'none'.
func (r remote) frameAncestors() string {
	if len(r.embed) == 0 {
		return "'none'"
	}
	return strings.Join(r.embed, " ")
}
