package browser

import (
	"context"
	"net/url"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"

	cdpconn "github.com/poppy-browser/poppy-browser/browser/internal/cdp"
)

// intercept intercepts every request of the browser, in every target, at
// the browser session; Launch calls it once, before any page exists: a request to a Company host continues with
// CompanyHeaders added, any other continues untouched (or is blocked by a
// request observer, see [Browser.ObserveRequests]). Chromium pauses each
// redirect hop again, so a Company-to-elsewhere redirect loses the header.
// Authentication challenges are handled here too (see watchFaults).
func (b *Browser) intercept(ctx context.Context) error {
	root := b.conn.Root()
	root.On(fetch.RequestPaused.Method, func(raw jsonv2.Value) {
		ev, ok := cdpconn.Decode[fetch.EventRequestPaused](raw)
		if !ok || ev.Request == nil {
			return
		}
		b.wg.Go(func() { b.continueRequest(ev) })
	})
	_, err := cdp.Call(ctx, root, fetch.Enable, fetch.EnableParams{
		Patterns:           []*fetch.RequestPattern{{URLPattern: "*", RequestStage: fetch.RequestStageRequest}},
		HandleAuthRequests: ptr(true),
	})
	return err
}

func (b *Browser) continueRequest(ev fetch.EventRequestPaused) {
	if b.observe(ev) {
		if err := b.failRequest(ev); err != nil && !isGone(err) {
			b.log.Debug("blocking request", "err", err)
		}
		return
	}
	params := fetch.ContinueRequestParams{RequestID: ev.RequestID}
	if b.isCompanyURL(ev.Request.URL) {
		params.Headers = withHeaders(ev.Request.Headers, b.opts.CompanyHeaders)
	}
	if err := b.conn.Root().Call(b.ctx, fetch.CommandContinueRequest, params, nil); err != nil && !isGone(err) {
		b.log.Debug("continuing request", "err", err)
	}
}

func (b *Browser) isCompanyURL(raw string) bool {
	if b.opts.CompanyURL != nil {
		return b.opts.CompanyURL(raw)
	}
	if b.opts.CompanyHost == nil {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return false
	}
	return b.opts.CompanyHost(u.Hostname())
}

// withHeaders returns the request's headers with extra set, replacing any
// header of the same name (case-insensitively) that the page sent.
func withHeaders(h map[string]any, extra map[string]string) []*fetch.HeaderEntry {
	out := make([]*fetch.HeaderEntry, 0, len(h)+len(extra))
	for name, v := range h {
		replaced := false
		for e := range extra {
			if strings.EqualFold(name, e) {
				replaced = true
			}
		}
		if replaced {
			continue
		}
		s, _ := v.(string)
		out = append(out, &fetch.HeaderEntry{Name: name, Value: s})
	}
	for name, v := range extra {
		out = append(out, &fetch.HeaderEntry{Name: name, Value: v})
	}
	return out
}
