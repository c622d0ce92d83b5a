package browser

import (
	"context"
	"fmt"
	"github.com/chromedp/cdproto/storage"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
)

// Cookie is a cookie of the page's browser context (its value is the
// caller's to keep secret).
type Cookie struct {
	Name  string
	Value string
}

// Cookies returns the cookies the page's browser context would send to url.
func (p *Page) Cookies(ctx context.Context, url string) ([]Cookie, error) {
	res, err := cdp.Call(ctx, p.t.s, network.GetCookies, network.GetCookiesParams{URLs: []string{url}})
	if err != nil {
		return nil, fmt.Errorf("reading cookies: %w", err)
	}
	out := make([]Cookie, 0, len(res.Cookies))
	for _, c := range res.Cookies {
		out = append(out, Cookie{Name: c.Name, Value: c.Value})
	}
	return out, nil
}

// ClearCookies removes every cookie of every browser context.
func (b *Browser) ClearCookies(ctx context.Context) error {
	b.mu.Lock()
	var ctxs []cdp.BrowserContextID
	for _, p := range b.pages {
		ctxs = append(ctxs, p.browserContext)
	}
	b.mu.Unlock()
	if err := b.conn.Root().Call(ctx, storage.CommandClearCookies, storage.ClearCookiesParams{}, nil); err != nil {
		return fmt.Errorf("clearing cookies: %w", err)
	}
	for _, id := range ctxs {
		if id == "" {
			continue
		}
		if err := b.conn.Root().Call(ctx, storage.CommandClearCookies, storage.ClearCookiesParams{BrowserContextID: id}, nil); err != nil {
			return fmt.Errorf("clearing cookies: %w", err)
		}
	}
	return nil
}

// ClearCookies removes every cookie of this context.
func (c *Context) ClearCookies(ctx context.Context) error {
	if err := c.b.conn.Root().Call(ctx, storage.CommandClearCookies, storage.ClearCookiesParams{BrowserContextID: c.id}, nil); err != nil {
		return fmt.Errorf("clearing cookies: %w", err)
	}
	return nil
}
