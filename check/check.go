package check

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/supervisor"
)

// Options configure a [Checker]. The zero value checks with discovery, without
// --fill, with the submit-path and controller probes, in a headless Chromium
// found on PATH.
type Options struct {
	// Chromium is the browser binary; empty means find it on PATH.
	Chromium string
	// CDPURL attaches to a running browser instead of launching one; empty
	// means launch.
	CDPURL string
	// Headful shows the browser window; false means headless.
	Headful bool
	// BrowserArgs are extra Chromium flags; nil means none.
	BrowserArgs []string
	// HTTPClient fetches poppy.json; nil means a client with a 20 s timeout.
	HTTPClient *http.Client
	// NoDiscovery skips discovery: the page's host and its subdomains are
	// taken as the Company's website (pages in development).
	NoDiscovery bool
	// Fill fills each submission form's controls as the agent would and
	// reports what filling caused.
	Fill bool
	// NoProbe skips the escape routes (clicks and keys on unmarked
	// controls) and the submission probes (as the User and as the agent).
	NoProbe bool
	// Watch is how long each page is watched after it loads, for marks
	// that arrive late (a fetch, a framework's hydration, a timer): 0 means
	// DefaultWatch; at most MaxWatch.
	Watch time.Duration
	// Settle bounds the wait, after Watch, for the page's network and DOM
	// to be quiet for Quiet; 0 means 5 s.
	Settle time.Duration
	// Quiet is how long without a DOM change or a request counts as
	// settled; 0 means 700 ms.
	Quiet time.Duration
	// MaxProbes bounds the escape routes tried per page; 0 means 24.
	MaxProbes int
	// Parallel is how many pages are checked at once (they share the
	// browser of their Company); 0 means 2.
	Parallel int
	// CAFile and Resolve are supervisor.BrowserOptions.CAFile and Resolve: a
	// private CA and host mappings for discovery and the browser alike
	// (staging servers).
	CAFile  string
	Resolve []string
	// Headers are added to every request to the Company's hosts (and to
	// the crawl's fetches of them): --header, for pages behind a login.
	// Their values are secrets, never in a report or a log. Nil means none.
	Headers map[string]string
	// StorageState is loaded into each page's browser context before the
	// page loads (--storage-state: Playwright's cookies and local
	// storage). Nil means none.
	StorageState *StorageState
	// Progress, when set, is called before each page.
	Progress func(i, n int, url string)
	// Logger receives debug logs; nil discards.
	Logger *slog.Logger
}

// Watch window bounds (see Options.Watch).
const (
	DefaultWatch = 5 * time.Second
	MaxWatch     = 60 * time.Second
)

// Checker checks pages, each in the runtime of its Company: a
// [supervisor.Supervisor] without a Session (--no-join), live view or audit
// file, with the marks watcher, one per Company domain, shared by that
// Company's pages. Create it with [New] and Close it. CheckPage and Run
// are safe for concurrent use; Close is not.
type Checker struct {
	opts   Options
	log    *slog.Logger
	client *http.Client

	mu       sync.Mutex
	runtimes map[string]*runtime // by Company domain

	discMu     sync.Mutex
	discovered map[string]*Discovery
	companies  map[string]*session.Company
	startHosts []string // the crawl's pages given: where Headers may go
}

// New returns a checker; it starts a browser for the first page it checks.
func New(ctx context.Context, opts *Options) (*Checker, error) {
	c := &Checker{runtimes: map[string]*runtime{}, discovered: map[string]*Discovery{}, companies: map[string]*session.Company{}}
	if opts != nil {
		c.opts = *opts
	}
	c.log = c.opts.Logger
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.client = c.opts.HTTPClient
	if c.client == nil {
		var err error
		if c.opts.CAFile != "" || len(c.opts.Resolve) > 0 {
			// Discovery reaches staging servers as the browser does.
			sopts := supervisor.Options{Browser: supervisor.BrowserOptions{CAFile: c.opts.CAFile, Resolve: c.opts.Resolve}}
			if c.client, err = sopts.Client(); err != nil {
				return nil, err
			}
		} else {
			c.client = &http.Client{Timeout: 20 * time.Second}
		}
	}
	switch {
	case c.opts.Watch <= 0:
		c.opts.Watch = DefaultWatch
	case c.opts.Watch > MaxWatch:
		return nil, fmt.Errorf("watch window %s is longer than %s", c.opts.Watch, MaxWatch)
	}
	if c.opts.Parallel <= 0 {
		c.opts.Parallel = 2
	}
	if c.opts.Settle <= 0 {
		c.opts.Settle = 5 * time.Second
	}
	if c.opts.Quiet <= 0 {
		c.opts.Quiet = 700 * time.Millisecond
	}
	if c.opts.MaxProbes <= 0 {
		c.opts.MaxProbes = 24
	}
	return c, nil
}

// Close ends every Company's runtime and its browser.
func (c *Checker) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for d, rt := range c.runtimes {
		if rt.sv != nil {
			errs = append(errs, rt.sv.Close())
		}
		delete(c.runtimes, d)
	}
	return errors.Join(errs...)
}

// Run checks every URL, Parallel at a time, and returns the report with
// the pages in the order given. A page that cannot be checked is a page
// with status "failed", not an error; the error is for a run that could
// not go on (ctx ended, a browser crashed).
func (c *Checker) Run(ctx context.Context, urls []string) (*Report, error) {
	r := &Report{Schema: SchemaID, Started: time.Now().UTC(), Pages: make([]PageReport, len(urls)),
		Options: ReportFlags{Discovery: !c.opts.NoDiscovery, Fill: c.opts.Fill, Probe: !c.opts.NoProbe}}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(c.opts.Parallel, len(urls)) {
		wg.Go(func() {
			for i := range next {
				r.Pages[i] = c.CheckPage(ctx, urls[i])
				if err := c.crashed(); err != nil {
					cancel(err)
				}
			}
		})
	}
	for i, u := range urls {
		if ctx.Err() != nil {
			break
		}
		if c.opts.Progress != nil {
			c.opts.Progress(i+1, len(urls), u)
		}
		select {
		case next <- i:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	done := r.Pages[:0]
	for i, p := range r.Pages {
		if p.URL == "" { // never started: the run stopped first
			p = PageReport{URL: urls[i], Status: StatusFailed, Error: "not checked: the run stopped", Marks: []MarkRow{}, Findings: []Finding{}, Checked: []string{}, Skipped: []string{}}
		}
		done = append(done, p)
	}
	r.Pages = done
	r.Duration = time.Since(r.Started).Seconds()
	r.tally()
	if err := context.Cause(ctx); err != nil {
		return r, fmt.Errorf("checking: %w", err)
	}
	return r, nil
}

// crashed reports a browser that went away.
func (c *Checker) crashed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rt := range c.runtimes {
		if rt.sv == nil || rt.sv.Crashed() == nil {
			continue
		}
		select {
		case <-rt.sv.Crashed():
			return errors.New("the browser went away")
		default:
		}
	}
	return nil
}

// company finds the Company of a page: by discovery (cached per host), or
// the page's host itself with NoDiscovery or when discovery failed.
func (c *Checker) company(ctx context.Context, raw string) (*session.Company, *Discovery, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Hostname() == "" {
		return nil, nil, fmt.Errorf("not an http or https url: %q", raw)
	}
	host := u.Hostname()
	if c.opts.NoDiscovery || devHost(host) || net.ParseIP(host) != nil {
		co, err := session.NoJoin(host)
		return co, nil, err
	}
	c.discMu.Lock() // one discovery per host, even for pages checked at once
	defer c.discMu.Unlock()
	if d, ok := c.discovered[host]; ok {
		return c.companies[host], d, nil
	}
	d := &Discovery{Domain: host, URL: "https://" + host + spec.WellKnownPath}
	co, warns, err := session.Discover(ctx, c.client, host)
	if err != nil {
		hint := flagHint(err, dnsUp(ctx))
		if devHost(host) {
			hint = hintNoDiscovery
		}
		d.Error = err.Error() + hint
		if co, err = session.NoJoin(host); err != nil {
			return nil, nil, err
		}
	} else {
		d.OK = true
		for _, w := range warns {
			d.Warnings = append(d.Warnings, w.Message)
		}
	}
	c.discovered[host], c.companies[host] = d, co
	return co, d, nil
}

// Hints after an error, naming what helps.
const (
	hintNoDiscovery = " (a page in development: use --no-discovery)"
	hintCAFile      = " (a staging server with a private CA: use --ca-file)"
	hintResolve     = " (a staging server not in DNS: use --resolve HOST=ADDR)"
	hintUnreachable = " (it could not be reached: this machine has no network or no DNS answers)"
)

// skipsDiscovery says why a page's host skips discovery by itself: a
// development name or an IP address has no poppy.json to discover
// (discovery needs a registrable domain); "" for any other host.
func skipsDiscovery(host string) string {
	switch {
	case devHost(host):
		return fmt.Sprintf("%s is a development host", host)
	case net.ParseIP(host) != nil:
		return fmt.Sprintf("%s is an IP address", host)
	}
	return ""
}

// devHost reports whether host is a development name (localhost or under
// it), which has no discovery.
func devHost(host string) bool { return host == "localhost" || strings.HasSuffix(host, ".localhost") }

// flagHint names the flag that helps with a discovery error, told by the
// error's type, if one does. A name that is not found is a staging
// server's only when DNS works (dnsUp reports whether it does): offline,
// every name is not found.
func flagHint(err error, dnsUp func() bool) string {
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		verify   *tls.CertificateVerificationError
		dns      *net.DNSError
		op       *net.OpError
	)
	switch {
	case errors.Is(err, spec.ErrIPLiteral):
		return hintNoDiscovery
	case errors.As(err, &unknown), errors.As(err, &hostname), errors.As(err, &invalid), errors.As(err, &verify):
		return hintCAFile
	case errors.As(err, &dns):
		if dns.IsNotFound && dnsUp() {
			return hintResolve
		}
		return hintUnreachable
	case errors.As(err, &op) && op.Op == "dial":
		return hintUnreachable
	}
	return ""
}

// loadHint names what helps with a page that did not load, from
// Chromium's net error code.
func loadHint(err error, dnsUp func() bool) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "ERR_CERT_"):
		return hintCAFile
	case strings.Contains(msg, "ERR_NAME_NOT_RESOLVED"):
		if dnsUp() {
			return hintResolve
		}
		return hintUnreachable
	case strings.Contains(msg, "ERR_INTERNET_DISCONNECTED"), strings.Contains(msg, "ERR_ADDRESS_UNREACHABLE"),
		strings.Contains(msg, "ERR_NETWORK_"), strings.Contains(msg, "ERR_CONNECTION_TIMED_OUT"):
		return hintUnreachable
	}
	return ""
}

// dnsUp reports whether this machine's DNS answers at all: whether the
// root zone's name servers can be looked up. Asked only after a name was
// not found, to tell a name missing from DNS from a machine offline.
func dnsUp(ctx context.Context) func() bool {
	return func() bool {
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		ns, err := net.DefaultResolver.LookupNS(ctx, ".")
		return err == nil && len(ns) > 0
	}
}

// discoveryFindings turns a discovery outcome into findings.
func discoveryFindings(d *Discovery) []Finding {
	if d == nil {
		return nil
	}
	var out []Finding
	if !d.OK {
		out = append(out, finding("discovery-failed", Error, CheckDiscovery, "BC-3-poppy-json",
			d.Error+"; an agent that discovers the Company will not use browser-control v1 here"))
	}
	for _, w := range d.Warnings {
		out = append(out, finding("discovery-warning", Warning, CheckDiscovery, "BC-3-poppy-json", w))
	}
	return out
}
