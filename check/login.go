package check

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"strings"

	"github.com/poppy-browser/poppy-browser/browser"
)

// Pages behind a login: a Playwright storage state (cookies and local
// storage, --storage-state) loaded into each page's browser context before
// it loads, and headers (--header) on every request to the Company's
// hosts. Their values are secrets: they reach the browser and the
// Company's server only, never a report, a log or an error.

// StorageState is Playwright's storage-state JSON (what
// `playwright codegen --save-storage` and context.storageState() write).
type StorageState struct {
	Cookies []struct {
		Name     string  `json:"name"`
		Value    string  `json:"value"`
		Domain   string  `json:"domain"`
		Path     string  `json:"path"`
		Expires  float64 `json:"expires"`
		HTTPOnly bool    `json:"httpOnly"`
		Secure   bool    `json:"secure"`
		SameSite string  `json:"sameSite"`
	} `json:"cookies"`
	Origins []struct {
		Origin       string `json:"origin"`
		LocalStorage []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"localStorage"`
	} `json:"origins"`
}

// LoadStorageState reads a storage-state file. Its errors name the file,
// never a value in it.
func LoadStorageState(path string) (*StorageState, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the storage state: %w", err)
	}
	return parseStorageState(data, path)
}

// parseStorageState reads a storage state from data, named name in errors
// (a file, or the login command), never quoting a value in it.
func parseStorageState(data []byte, path string) (*StorageState, error) {
	var st StorageState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("reading the storage state %s: not Playwright's storage-state JSON", path)
	}
	for i, c := range st.Cookies {
		if c.Name == "" || c.Domain == "" {
			return nil, fmt.Errorf("reading the storage state %s: cookie %d has no name or domain", path, i+1)
		}
	}
	for i, o := range st.Origins {
		if u, err := url.Parse(o.Origin); err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
			return nil, fmt.Errorf("reading the storage state %s: origin %d is not an http or https origin", path, i+1)
		}
	}
	return &st, nil
}

// apply loads the state's cookies into p's browser context, before it
// loads anything; its local storage waits for a document of its origin
// (storeLocal).
func (st *StorageState) apply(ctx context.Context, p *browser.Page) error {
	if st == nil {
		return nil
	}
	var cookies []browser.StoredCookie
	for _, c := range st.Cookies {
		cookies = append(cookies, browser.StoredCookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path,
			Expires: c.Expires, HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: c.SameSite})
	}
	if err := p.SetCookies(ctx, cookies); err != nil {
		return fmt.Errorf("loading the storage state: %w", err)
	}
	return nil
}

// storeLocal puts the storage state's local storage into the page's
// browser context once, after the page's first load: the browser keeps a
// document's local storage only once a document of its origin is open.
// It reports whether it stored any, so that the caller loads the page
// again with it. An origin the page never opens is left out.
func (r *pageRun) storeLocal(ctx context.Context) (bool, error) {
	st := r.c.opts.StorageState
	if st == nil || r.stored {
		return false, nil
	}
	r.stored = true
	open := map[string]bool{}
	for _, f := range r.p.Frames() {
		if u, err := url.Parse(f.URL); err == nil && u.Host != "" {
			open[u.Scheme+"://"+u.Host] = true
		}
	}
	any := false
	for _, o := range st.Origins {
		origin := strings.TrimSuffix(o.Origin, "/")
		if !open[origin] || len(o.LocalStorage) == 0 {
			continue
		}
		items := map[string]string{}
		for _, it := range o.LocalStorage {
			items[it.Name] = it.Value
		}
		if err := r.p.SetLocalStorage(ctx, origin, items); err != nil {
			return false, fmt.Errorf("loading the storage state: %w", err)
		}
		any = true
	}
	return any, nil
}

// ParseHeader reads --header NAME=VALUE, where VALUE is @FILE (the file's
// contents, without a final newline) or $VAR (the environment variable):
// a header that signs in is a secret, and a secret is not given on the
// command line. getenv is os.Getenv in the command.
func ParseHeader(s string, getenv func(string) string) (name, value string, err error) {
	name, src, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || src == "" {
		return "", "", fmt.Errorf("header %q: want NAME=@FILE or NAME=$VAR", name) // never the value
	}
	if !validHeaderName(name) {
		return "", "", fmt.Errorf("header %q: not a header name", name)
	}
	switch {
	case strings.HasPrefix(src, "@"):
		data, err := os.ReadFile(src[1:])
		if err != nil {
			return "", "", fmt.Errorf("header %s: reading its value: %w", name, err)
		}
		value = strings.TrimRight(string(data), "\r\n")
	case strings.HasPrefix(src, "$"):
		if value = getenv(src[1:]); value == "" {
			return "", "", fmt.Errorf("header %s: the environment variable %s is not set", name, src[1:])
		}
	default:
		return "", "", fmt.Errorf("header %s: give its value as @FILE or $VAR, not on the command line", name)
	}
	if strings.ContainsAny(value, "\r\n\x00") {
		return "", "", fmt.Errorf("header %s: its value holds a line break", name)
	}
	return textproto.CanonicalMIMEHeaderKey(name), value, nil
}

// validHeaderName: an HTTP token (RFC 9110).
func validHeaderName(s string) bool {
	for _, c := range s {
		if c > 126 || c <= 32 || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, c) {
			return false
		}
	}
	return true
}

// headersFor are the headers the crawl's fetch of u carries: Options.Headers
// for a host of a page given or under it (the Company's pages), none
// elsewhere.
func (c *Checker) headersFor(u *url.URL) map[string]string {
	if len(c.opts.Headers) == 0 || !c.ownHost(u.Hostname()) {
		return nil
	}
	return c.opts.Headers
}

// ownHost says whether host is one the headers may go to: a Company's
// (a page given, or under its domain).
func (c *Checker) ownHost(host string) bool {
	c.discMu.Lock()
	defer c.discMu.Unlock()
	for _, co := range c.companies {
		if co != nil && co.IsCompanyHost(host) {
			return true
		}
	}
	for _, h := range c.startHosts {
		if host == h || strings.HasSuffix(host, "."+h) {
			return true
		}
	}
	return false
}

// crawlClient is the checker's client that drops the headers on a
// redirect to a host they are not for.
func (c *Checker) crawlClient() *http.Client {
	cl := *c.client
	cl.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return fmt.Errorf("stopped after 10 redirects")
		}
		if !c.ownHost(req.URL.Hostname()) {
			for name := range c.opts.Headers {
				req.Header.Del(name)
			}
		}
		return nil
	}
	return &cl
}

// cookiesFor are the state's cookies a browser would send to u (domain,
// path, secure), for the crawl's fetches of pages behind a login.
func (st *StorageState) cookiesFor(u *url.URL) []*http.Cookie {
	if st == nil {
		return nil
	}
	host := u.Hostname()
	var out []*http.Cookie
	for _, c := range st.Cookies {
		domain := strings.TrimPrefix(c.Domain, ".")
		if host != domain && !strings.HasSuffix(host, "."+domain) {
			continue
		}
		if c.Secure && u.Scheme != "https" {
			continue
		}
		if p := c.Path; p != "" && p != "/" && u.Path != p && !strings.HasPrefix(u.Path, strings.TrimSuffix(p, "/")+"/") {
			continue
		}
		out = append(out, &http.Cookie{Name: c.Name, Value: c.Value})
	}
	return out
}
