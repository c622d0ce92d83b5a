package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domstorage"
	"github.com/chromedp/cdproto/network"
)

// StoredCookie is a cookie to put in a page's browser context, as
// Playwright's storage state holds one. Expires is in seconds since the
// epoch; 0 or less makes a session cookie. Its value is the caller's
// secret: it goes to the browser only.
type StoredCookie struct {
	Name, Value, Domain, Path string
	Expires                   float64
	HTTPOnly, Secure          bool
	SameSite                  string // "Strict", "Lax", "None" or ""
}

// SetCookies puts cookies in the page's browser context (a signed-in
// state the checker reuses), before the page loads anything.
func (p *Page) SetCookies(ctx context.Context, cookies []StoredCookie) error {
	params := network.SetCookiesParams{}
	for _, c := range cookies {
		cp := &network.CookieParam{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Secure: c.Secure, HTTPOnly: c.HTTPOnly}
		if c.Expires > 0 {
			cp.Expires = cdp.TimeSinceEpoch(c.Expires)
		}
		switch c.SameSite {
		case "Strict", "Lax", "None":
			cp.SameSite = network.CookieSameSite(c.SameSite)
		}
		params.Cookies = append(params.Cookies, cp)
	}
	if len(params.Cookies) == 0 {
		return nil
	}
	if _, err := cdp.Call(ctx, guarded{p.t, browserSide}, network.SetCookies, params); err != nil {
		return fmt.Errorf("setting cookies: %w", err)
	}
	return nil
}

// SetLocalStorage puts items in the local storage of origin
// ("https://host[:port]") in the page's browser context, before the page
// loads a document of that origin.
func (p *Page) SetLocalStorage(ctx context.Context, origin string, items map[string]string) error {
	id := &domstorage.StorageID{SecurityOrigin: origin, StorageKey: domstorage.SerializedStorageKey(origin + "/"), IsLocalStorage: true}
	for k, v := range items {
		if _, err := cdp.Call(ctx, guarded{p.t, browserSide}, domstorage.SetDOMStorageItem, domstorage.SetDOMStorageItemParams{StorageID: id, Key: k, Value: v}); err != nil {
			return fmt.Errorf("setting local storage: %w", err)
		}
	}
	return nil
}
