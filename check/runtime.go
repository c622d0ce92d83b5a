package check

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/supervisor"
)

// runtime is one Company's runtime and the probe view of its Session's one
// gate, which every snapshot and probe input of its pages passes: the
// checker's pages are tabs of their own, each probe naming its page. The
// prober also keeps navigator.poppy.controller in step with the pages
// sharing the browser (gate.Prober's AsAgent and AsUser). Check builds no
// gate: the Session does (supervisor.Options.Probe).
type runtime struct {
	sv    *supervisor.Supervisor
	probe *gate.Prober
	start sync.Once
	err   error
}

// foreground are the Chromium flags that run every tab of the checker's
// browser as a tab in front: pages checked at once share one browser, and
// a tab behind another would have its timers slowed to once a second,
// which would stretch what a probe waits for past its bound.
var foreground = []string{
	"--disable-background-timer-throttling",
	"--disable-renderer-backgrounding",
	"--disable-backgrounding-occluded-windows",
}

// use returns the runtime of co, starting it for the Company's first page:
// the header goes to co's requests and navigator.poppy to its pages.
// With CAFile, the host (and port) of the Company's first page is verified
// too, besides the Company's domain at 443.
func (c *Checker) use(ctx context.Context, co *session.Company, page string) (*runtime, error) {
	c.mu.Lock()
	rt := c.runtimes[co.Domain]
	if rt == nil {
		rt = &runtime{}
		c.runtimes[co.Domain] = rt
	}
	c.mu.Unlock()
	rt.start.Do(func() {
		// The browser outlives the page that starts it; its start is bounded.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		defer cancel()
		var trust []string
		if u, err := url.Parse(page); err == nil && u.Scheme == "https" {
			trust = []string{u.Host}
		}
		sv := supervisor.New(&supervisor.Options{
			Company: co.Domain,
			Logger:  c.log,
			Join:    supervisor.JoinOptions{Skip: true},
			Browser: supervisor.BrowserOptions{
				TrustHosts: trust,
				WatchMarks: true,
				Probe:      true,
				Chromium:   c.opts.Chromium,
				CDPURL:     c.opts.CDPURL,
				Headful:    c.opts.Headful,
				Args:       append(slices.Clone(foreground), c.opts.BrowserArgs...),
				CAFile:     c.opts.CAFile,
				Resolve:    c.opts.Resolve,
				// The Company's hosts only; never logged.
				CompanyRequestHeaders: c.opts.Headers,
			},
			Live: supervisor.LiveOptions{Off: true},
		})
		if err := sv.Start(sctx); err != nil {
			rt.err = fmt.Errorf("starting the checker's browser: %w", err)
			return
		}
		c.mu.Lock()
		rt.sv, rt.probe = sv, sv.Prober()
		c.mu.Unlock()
	})
	if rt.err != nil {
		return nil, rt.err
	}
	return rt, nil
}
