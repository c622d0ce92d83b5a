package check

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
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
	// NoProbe skips clicking unmarked buttons (submit paths) and submitting
	// as the User (controller).
	NoProbe bool
	// Settle bounds the wait for a page to become quiet after it loads
	// (no DOM change for Quiet); 0 means 5 s.
	Settle time.Duration
	// Quiet is how long without a DOM change counts as settled; 0 means 700 ms.
	Quiet time.Duration
	// MaxProbes bounds the buttons clicked per page; 0 means 10.
	MaxProbes int
	// Progress, when set, is called before each page.
	Progress func(i, n int, url string)
	// Logger receives debug logs; nil discards.
	Logger *slog.Logger
}

// Checker checks pages one at a time, each in the runtime of its Company: a
// [supervisor.Supervisor] without a Session (--no-join), live view or audit
// file, with the marks watcher. It keeps the runtime of the last Company
// and starts another when a page belongs to another Company. Create it with
// [New] and Close it. Its methods must not be called concurrently.
type Checker struct {
	opts   Options
	log    *slog.Logger
	client *http.Client
	sv     *supervisor.Supervisor // the runtime of the current Company, or nil
	domain string                 // the current Company's domain

	discovered map[string]*Discovery
	companies  map[string]*session.Company
}

// New returns a checker; it starts a browser for the first page it checks.
func New(ctx context.Context, opts *Options) (*Checker, error) {
	c := &Checker{discovered: map[string]*Discovery{}, companies: map[string]*session.Company{}}
	if opts != nil {
		c.opts = *opts
	}
	c.log = c.opts.Logger
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.client = c.opts.HTTPClient
	if c.client == nil {
		c.client = &http.Client{Timeout: 20 * time.Second}
	}
	if c.opts.Settle <= 0 {
		c.opts.Settle = 5 * time.Second
	}
	if c.opts.Quiet <= 0 {
		c.opts.Quiet = 700 * time.Millisecond
	}
	if c.opts.MaxProbes <= 0 {
		c.opts.MaxProbes = 10
	}
	return c, nil
}

// Close ends the current Company's runtime and its browser.
func (c *Checker) Close() error {
	if c.sv == nil {
		return nil
	}
	err := c.sv.Close()
	c.sv = nil
	return err
}

// Run checks every URL in order and returns the report. A page that cannot
// be checked is a page with status "failed", not an error; the error is
// for a run that could not go on (ctx ended, the browser crashed).
func (c *Checker) Run(ctx context.Context, urls []string) (*Report, error) {
	r := &Report{Schema: SchemaID, Started: time.Now().UTC(), Pages: []PageReport{},
		Options: ReportFlags{Discovery: !c.opts.NoDiscovery, Fill: c.opts.Fill, Probe: !c.opts.NoProbe}}
	for i, u := range urls {
		if c.opts.Progress != nil {
			c.opts.Progress(i+1, len(urls), u)
		}
		pr := c.CheckPage(ctx, u)
		r.Pages = append(r.Pages, pr)
		if err := ctx.Err(); err != nil {
			r.tally()
			return r, fmt.Errorf("checking %s: %w", u, err)
		}
		if c.sv == nil {
			continue
		}
		select {
		case <-c.sv.Browser().Crashed():
			r.tally()
			return r, errors.New("checking: the browser went away")
		default:
		}
	}
	r.Duration = time.Since(r.Started).Seconds()
	r.tally()
	return r, nil
}

// company finds the Company of a page: by discovery (cached per host), or
// the page's host itself with NoDiscovery or when discovery failed.
func (c *Checker) company(ctx context.Context, raw string) (*session.Company, *Discovery, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Hostname() == "" {
		return nil, nil, fmt.Errorf("not an http or https url: %q", raw)
	}
	host := u.Hostname()
	if c.opts.NoDiscovery {
		co, err := session.NoJoin(host)
		return co, nil, err
	}
	if d, ok := c.discovered[host]; ok {
		return c.companies[host], d, nil
	}
	d := &Discovery{Domain: host, URL: "https://" + host + spec.WellKnownPath}
	co, warns, err := session.Discover(ctx, c.client, host)
	if err != nil {
		d.Error = err.Error()
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

// discoveryFindings turns a discovery outcome into findings.
func discoveryFindings(d *Discovery) []Finding {
	if d == nil {
		return nil
	}
	var out []Finding
	if !d.OK {
		out = append(out, finding(Error, CheckDiscovery, "BC-3-poppy-json",
			d.Error+"; an agent that discovers the Company will not use browser-control v1 here"))
	}
	for _, w := range d.Warnings {
		out = append(out, finding(Warning, CheckDiscovery, "BC-3-poppy-json", w))
	}
	return out
}

// use makes co the Company whose requests carry the header and whose pages
// get navigator.poppy: it keeps the runtime when co is the current Company
// and starts a new one otherwise.
func (c *Checker) use(ctx context.Context, co *session.Company) (*supervisor.Supervisor, error) {
	if c.sv != nil && c.domain == co.Domain {
		return c.sv, nil
	}
	if err := c.Close(); err != nil {
		c.log.Debug("closing the previous runtime", "err", err)
	}
	sv := supervisor.New(&supervisor.Options{
		Company:     co.Domain,
		NoJoin:      true,
		NoLiveView:  true,
		WatchMarks:  true,
		Chromium:    c.opts.Chromium,
		CDPURL:      c.opts.CDPURL,
		Headful:     c.opts.Headful,
		BrowserArgs: c.opts.BrowserArgs,
		Logger:      c.log,
	})
	if err := sv.Start(ctx); err != nil {
		return nil, fmt.Errorf("starting the checker's browser: %w", err)
	}
	c.sv, c.domain = sv, co.Domain
	return sv, nil
}
