package supervisor

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
)

// Staging servers: Options.Browser.CAFile and Resolve apply to discovery,
// the join and the browser alike.
//
// Go's side (discovery) trusts the system's roots plus CAFile and dials a
// Resolve host at its address. Chromium has no flag that trusts a CA file,
// and its --ignore-certificate-errors-spki-list trusts any chain that
// merely shows a listed key, which for a CA's public certificate anyone can
// do. So the supervisor verifies each host the browser is to trust (the
// Company's domain, the Resolve hosts and TrustHosts) itself, over TLS
// against CAFile, and pins the SPKI of the leaf each one presented: only the
// holder of that leaf's private key can show it. A Company host serving
// another certificate that no pinned key signs fails in the browser with a
// certificate error; name it in TrustHosts (or --resolve).

// resolveRule is one --resolve HOST=ADDR.
type resolveRule struct {
	host string // lower case, no trailing dot
	addr string // IP or IP:port
}

// parseResolve reads Options.Browser.Resolve.
func parseResolve(rules []string) ([]resolveRule, error) {
	var out []resolveRule
	for _, r := range rules {
		host, addr, ok := strings.Cut(r, "=")
		host = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(host)), ".")
		addr = strings.TrimSpace(addr)
		if !ok || host == "" || addr == "" || strings.ContainsAny(host, ":/ ,") {
			return nil, fmt.Errorf("--resolve %q: want HOST=ADDR, e.g. airline.test=10.0.0.5 or airline.test=127.0.0.1:8443", r)
		}
		ip := addr
		if h, p, err := net.SplitHostPort(addr); err == nil {
			if p == "" || strings.Trim(p, "0123456789") != "" {
				return nil, fmt.Errorf("--resolve %q: bad port %q", r, p)
			}
			ip = h
		}
		if net.ParseIP(ip) == nil {
			return nil, fmt.Errorf("--resolve %q: ADDR must be an IP address (with an optional :port), not %q", r, addr)
		}
		out = append(out, resolveRule{host: host, addr: addr})
	}
	return out, nil
}

// dialTarget is where a connection to hostport goes under rules: ADDR, with
// hostport's port when ADDR has none.
func dialTarget(rules []resolveRule, hostport string) string {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return hostport
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, r := range rules {
		if r.host != host {
			continue
		}
		if _, _, err := net.SplitHostPort(r.addr); err == nil {
			return r.addr
		}
		return net.JoinHostPort(r.addr, port)
	}
	return hostport
}

// roots are the system's roots plus CAFile; nil without CAFile (the system's).
func (o *Options) roots() (*x509.CertPool, error) {
	if o.Browser.CAFile == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(o.Browser.CAFile)
	if err != nil {
		return nil, fmt.Errorf("--ca-file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--ca-file %s: no PEM certificate in it", o.Browser.CAFile)
	}
	return pool, nil
}

// Client returns the HTTP client for discovery: 20 s a request, trusting
// CAFile besides the system's roots, dialing Resolve's hosts at their
// addresses.
func (o *Options) Client() (*http.Client, error) {
	rules, err := parseResolve(o.Browser.Resolve)
	if err != nil {
		return nil, err
	}
	pool, err := o.roots()
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil // a staging address is reached directly, as the browser does
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	tr.DialContext = func(ctx context.Context, network, hostport string) (net.Conn, error) {
		return d.DialContext(ctx, network, dialTarget(rules, hostport))
	}
	return &http.Client{Transport: tr, Timeout: 20 * time.Second}, nil
}

// networkArgs are the Chromium flags for Resolve and CAFile. The Company's
// hosts are verified over TLS (port 443 unless a TrustHosts entry names
// one); a Company host that fails the check is an error naming the flags.
func (o *Options) networkArgs(ctx context.Context, domain string) ([]string, error) {
	rules, err := parseResolve(o.Browser.Resolve)
	if err != nil {
		return nil, err
	}
	var args []string
	if len(rules) > 0 {
		maps := make([]string, len(rules))
		for i, r := range rules {
			maps[i] = "MAP " + r.host + " " + r.addr
		}
		args = append(args, "--host-resolver-rules="+strings.Join(maps, ", "))
	}
	if o.Browser.CAFile == "" {
		return args, nil
	}
	pool, err := o.roots()
	if err != nil {
		return nil, err
	}
	hosts := []string{net.JoinHostPort(domain, "443")}
	for _, r := range rules {
		hosts = append(hosts, net.JoinHostPort(r.host, "443"))
	}
	for _, h := range o.Browser.TrustHosts {
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(h, "443")
		}
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	hosts = slices.Compact(hosts)
	var pins []string
	var errs []error
	for _, h := range hosts {
		pin, err := leafPin(ctx, pool, rules, h)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !slices.Contains(pins, pin) {
			pins = append(pins, pin)
		}
	}
	if len(pins) == 0 {
		return nil, fmt.Errorf("--ca-file: no Company host could be verified with it (use --resolve HOST=ADDR to reach a staging server): %w", errors.Join(errs...))
	}
	for _, err := range errs {
		o.logger().Warn("--ca-file: a host is not trusted in the browser", "err", err)
	}
	return append(args, "--ignore-certificate-errors-spki-list="+strings.Join(pins, ",")), nil
}

// leafPin connects to hostport, verifies its certificate for the host
// against pool and returns base64(sha256(SPKI)) of its leaf.
func leafPin(ctx context.Context, pool *x509.CertPool, rules []resolveRule, hostport string) (string, error) {
	host, _, _ := net.SplitHostPort(hostport)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	d := tls.Dialer{Config: &tls.Config{RootCAs: pool, ServerName: host, MinVersion: tls.VersionTLS12}}
	conn, err := d.DialContext(ctx, "tcp", dialTarget(rules, hostport))
	if err != nil {
		return "", fmt.Errorf("verifying %s: %w", hostport, err)
	}
	defer conn.Close()
	certs := conn.(*tls.Conn).ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return "", fmt.Errorf("verifying %s: no certificate", hostport)
	}
	sum := sha256.Sum256(certs[0].RawSubjectPublicKeyInfo)
	return base64.StdEncoding.EncodeToString(sum[:]), nil
}
