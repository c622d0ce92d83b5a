package browser

import (
	"context"
	"fmt"

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
