package testsite

import (
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// The demo Company and its hosts.
const (
	CompanyDomain = "airline.test"     // organization.domain
	WWWHost       = "www.airline.test" // serves the same pages as CompanyDomain
	PayHost       = "pay.airline.test" // a Company subdomain that serves the pay frame
	PartnerHost   = "partner.test"     // a third party
	BookingID     = "bkg_4Rt9"
	OrgName       = "Demo Airline"
	SessionCookie = "airline_session"
)

// Hosts returns the host names the Site serves, Company hosts first.
func Hosts() []string {
	return []string{CompanyDomain, WWWHost, PayHost, PartnerHost}
}

// JoinEndpoint returns the browser-session endpoint the default poppy.json declares.
func JoinEndpoint() string { return "https://" + CompanyDomain + "/poppy/browser-session" }

// CheckInURL returns the URL of the marked check-in page.
func CheckInURL() string { return "https://" + CompanyDomain + "/bookings/" + BookingID + "/check-in" }

// BookingURL returns the URL of the booking page.
func BookingURL() string { return "https://" + CompanyDomain + "/bookings/" + BookingID }

// Options configures a Site. A nil *Options means all defaults.
type Options struct {
	// TrustedKeys are the agent keys whose browser credentials the join
	// endpoint accepts. Empty means none until TrustKey is called.
	TrustedKeys []ed25519.PublicKey
	// Now is the clock for credential checks; nil means time.Now.
	Now func() time.Time
	// Logger receives debug lines (method, host, path; never bodies, form
	// values or credentials); nil discards them.
	Logger *slog.Logger
}

// Site is the demo airline: one handler for every host, an in-memory CA, and
// the facts it recorded. Its methods are safe for concurrent use. Close frees
// the listener Start opened; a Site that was never started needs no Close.
type Site struct {
	now    func() time.Time
	log    *slog.Logger
	certs  *certs
	rec    *recorder
	hosts  map[string]http.Handler
	tmpl   *templates
	client *http.Client

	mu         sync.Mutex
	keys       []ed25519.PublicKey
	poppy      []byte              // nil: defaultPoppyJSON
	jtis       map[string]struct{} // used jti values
	sessions   map[string]string   // cookie value -> subject
	holds      []*Held             // responses held back (Hold)
	lastSeat   string
	shopOrders int
	joinAnswer JoinAnswer

	srv  *http.Server
	ln   net.Listener
	done chan error
}

// New builds a Site with a fresh CA. It starts nothing; see Start and Handler.
func New(opts *Options) (*Site, error) {
	if opts == nil {
		opts = &Options{}
	}
	s := &Site{
		now:      opts.Now,
		log:      opts.Logger,
		rec:      newRecorder(),
		keys:     slices.Clone(opts.TrustedKeys),
		jtis:     map[string]struct{}{},
		sessions: map[string]string{},
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	c, err := newCerts(time.Now())
	if err != nil {
		return nil, fmt.Errorf("creating testsite: %w", err)
	}
	s.certs = c
	t, err := parseTemplates()
	if err != nil {
		return nil, fmt.Errorf("creating testsite: %w", err)
	}
	s.tmpl = t
	airline := s.airlineMux()
	s.hosts = map[string]http.Handler{
		CompanyDomain: airline,
		WWWHost:       airline,
		PayHost:       s.frameMux(),
		PartnerHost:   s.partnerMux(),
	}
	return s, nil
}

// TrustKey adds pub to the keys whose credentials the join endpoint accepts.
func (s *Site) TrustKey(pub ed25519.PublicKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = append(s.keys, slices.Clone(pub))
}

// SetPoppyJSON replaces what /.well-known/poppy.json returns; nil restores
// the default document. Tests use it to serve a document without
// browser-control, with an http endpoint, and so on.
func (s *Site) SetPoppyJSON(doc []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.poppy = slices.Clone(doc)
}

// Start listens on addr (such as "127.0.0.1:0") and serves HTTPS for every
// host in a goroutine until Close.
func (s *Site) Start(addr string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		return errors.New("starting testsite: already started")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("starting testsite: %w", err)
	}
	srv := &http.Server{
		Handler:           s.Handler(),
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{s.certs.leaf}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       60 * time.Second, // an idle keep-alive connection is closed
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	s.srv, s.ln, s.done = srv, ln, make(chan error, 1)
	go func() { s.done <- srv.ServeTLS(ln, "", "") }()
	return nil
}

// Addr returns the listener's address, such as "127.0.0.1:41234", or "" before Start.
func (s *Site) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Close stops the server and closes its connections.
func (s *Site) Close() error {
	s.mu.Lock()
	srv, done := s.srv, s.done
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	err := srv.Close()
	if serr := <-done; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	if err != nil {
		return fmt.Errorf("closing testsite: %w", err)
	}
	return nil
}

// Shutdown stops the server gracefully, waiting for requests until ctx is done.
func (s *Site) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	srv, done := s.srv, s.done
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	if err := srv.Shutdown(ctx); err != nil {
		return fmt.Errorf("shutting down testsite: %w", err)
	}
	<-done
	return nil
}

// SPKIHash returns base64(sha256(SubjectPublicKeyInfo)) of the leaf, the
// value for Chromium's --ignore-certificate-errors-spki-list.
func (s *Site) SPKIHash() string { return s.certs.spki }

// CertPool returns a pool that trusts the Site's CA, for Go clients.
func (s *Site) CertPool() *x509.CertPool { return s.certs.pool.Clone() }

// Client returns an HTTP client that trusts the Site's CA and sends every
// *.test:443 connection to Addr(); it refuses any other address. It keeps no
// cookies and follows redirects as http.Client does by default; a request
// gets at most a minute (a loopback test server that answers slower has
// hung). Call it after Start.
func (s *Site) Client() *http.Client {
	var d net.Dialer
	addr := s.Addr()
	tr := &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: s.CertPool(), MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2: true,
		DialContext: func(ctx context.Context, network, hostport string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(hostport)
			if err != nil {
				return nil, fmt.Errorf("dialing %s: %w", hostport, err)
			}
			if port != "443" || !isTestHost(host) {
				return nil, fmt.Errorf("dialing %s: testsite client only reaches *.test:443", hostport)
			}
			return d.DialContext(ctx, network, addr)
		},
	}
	return &http.Client{Transport: tr, Timeout: time.Minute}
}

// BrowserArgs returns the Chromium flags that send *.test to the listener
// and trust its leaf by SPKI pin. Call it after Start.
func (s *Site) BrowserArgs() []string {
	_, port, _ := net.SplitHostPort(s.Addr())
	return []string{
		"--host-resolver-rules=MAP *.test 127.0.0.1:" + port + ", EXCLUDE localhost",
		"--ignore-certificate-errors-spki-list=" + s.SPKIHash(),
	}
}

func isTestHost(host string) bool {
	return host == "test" || strings.HasSuffix(host, ".test")
}

// Handler returns the handler for every host: it records the request,
// marks the response no-store and dispatches on the Host header. An
// unknown host gets 421 Misdirected Request.
func (s *Site) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := hostOf(r)
		w.Header().Set("Cache-Control", "no-store")
		h, ok := s.hosts[host]
		s.log.Debug("request", "host", host, "method", r.Method, "path", r.URL.Path)
		if !ok {
			http.Error(w, "unknown host", http.StatusMisdirectedRequest)
			return
		}
		s.rec.addRequest(host, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Time: s.now()})
		s.wait(host, r)
		h.ServeHTTP(w, r)
	})
}

// hostOf returns the request's host, lower case, without a port.
func hostOf(r *http.Request) string {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.ToLower(strings.TrimSuffix(host, "."))
}

// CAPEM returns the Site's CA certificate in PEM: a CA the system does not
// trust, for --ca-file.
func (s *Site) CAPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.certs.leaf.Certificate[len(s.certs.leaf.Certificate)-1]})
}
