package session

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/testsite"
)

// formBrowser plays the browser's part of the join with plain HTTP clients:
// it GETs the loopback page, reads its form, POSTs it to the action with the
// Company's client (which keeps cookies) and follows the 303. It is a unit
// test double for the session logic, not a browser.
type formBrowser struct {
	site  *http.Client // reaches *.test, with a cookie jar
	check func(JoinRequest) bool

	navigations  int
	cleared      int
	pageURL      string
	pageHeader   http.Header
	pageBody     string
	secondStatus int // what asking for the page again answered
}

var (
	formActionRE = regexp.MustCompile(`<form method="post" action="([^"]*)"`)
	assertionRE  = regexp.MustCompile(`<input type="hidden" name="assertion" value="([^"]*)">`)
)

func (b *formBrowser) Navigate(ctx context.Context, pageURL string) (string, int, error) {
	b.navigations++
	b.pageURL = pageURL
	loopback := &http.Client{}
	body, header, status, err := get(ctx, loopback, pageURL)
	if err != nil {
		return "", 0, err
	}
	if status != http.StatusOK {
		return pageURL, status, nil
	}
	b.pageBody, b.pageHeader = body, header
	_, _, b.secondStatus, _ = get(ctx, loopback, pageURL)

	action, assertion := formActionRE.FindStringSubmatch(body), assertionRE.FindStringSubmatch(body)
	if action == nil || assertion == nil {
		return pageURL, status, nil // the form did not submit
	}
	form := url.Values{"assertion": {html.UnescapeString(assertion[1])}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, html.UnescapeString(action[1]), strings.NewReader(form.Encode()))
	if err != nil {
		return "", 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Poppy-Extensions", `"browser-control";v="1"`)
	if b.check != nil && !b.check(JoinRequest{Method: req.Method, URL: req.URL.String(), Document: true}) {
		return "", 0, errors.New("refused")
	}
	// Like the browser, ask before each redirect hop is sent.
	client := *b.site
	client.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(via) > 10 {
			return errors.New("too many redirects")
		}
		if b.check != nil && !b.check(JoinRequest{Method: r.Method, URL: r.URL.String(), Document: true}) {
			return errors.New("refused")
		}
		return nil
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", 0, err
	}
	resp.Body.Close()
	return resp.Request.URL.String(), resp.StatusCode, nil
}

func (b *formBrowser) WatchRequests(_ context.Context, check func(JoinRequest) bool) (func(), error) {
	b.check = check
	return func() { b.check = nil }, nil
}

func (b *formBrowser) Cookies(_ context.Context, raw string) ([]Cookie, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	var out []Cookie
	for _, c := range b.site.Jar.Cookies(u) {
		out = append(out, Cookie{Name: c.Name, Value: NewSecret(c.Value)})
	}
	return out, nil
}

func (b *formBrowser) ClearCookies(context.Context) error {
	b.cleared++
	jar, err := cookiejar.New(nil)
	if err != nil {
		return err
	}
	b.site.Jar = jar
	return nil
}

func get(ctx context.Context, c *http.Client, u string) (string, http.Header, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", nil, 0, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", nil, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), resp.Header, resp.StatusCode, err
}

// countingSource counts requests for a credential.
type countingSource struct {
	inner CredentialSource
	calls atomic.Int32
}

func (s *countingSource) Credential(ctx context.Context, req CredentialRequest) (Secret, error) {
	s.calls.Add(1)
	return s.inner.Credential(ctx, req)
}

// joinFixture is a running airline, its Company and a browser double.
type joinFixture struct {
	site    *testsite.Site
	company *Company
	browser *formBrowser
	signer  *KeySigner
}

func newJoinFixture(t *testing.T) *joinFixture {
	t.Helper()
	signer, pub, err := NewDemoSigner()
	if err != nil {
		t.Fatal(err)
	}
	site := startSite(t, &testsite.Options{TrustedKeys: []ed25519.PublicKey{pub}})
	client := site.Client()
	company, _, err := Discover(testContext(t), client, "airline.test")
	if err != nil {
		t.Fatal(err)
	}
	b := &formBrowser{site: client}
	if err := b.ClearCookies(testContext(t)); err != nil { // gives it a jar
		t.Fatal(err)
	}
	b.cleared = 0
	return &joinFixture{site: site, company: company, browser: b, signer: signer}
}

func (f *joinFixture) sessionCookie(t *testing.T) string {
	t.Helper()
	for _, c := range f.browser.site.Jar.Cookies(&url.URL{Scheme: "https", Host: "airline.test", Path: "/"}) {
		if c.Name == testsite.SessionCookie {
			return c.Value
		}
	}
	return ""
}

func TestJoin(t *testing.T) {
	f := newJoinFixture(t)
	src := &countingSource{inner: f.signer}
	if err := Join(testContext(t), f.browser, f.company, src, testsite.BookingURL(), nil); err != nil {
		t.Fatalf("Join: %v", err)
	}

	joins := f.site.Joins()
	if len(joins) != 1 || !joins[0].OK {
		t.Fatalf("testsite joins = %+v, want one accepted", joins)
	}
	if f.sessionCookie(t) == "" {
		t.Error("browser has no session cookie after the join")
	}
	if f.browser.cleared != 0 {
		t.Errorf("cookies cleared %d times after a successful join", f.browser.cleared)
	}
	if src.calls.Load() != 1 {
		t.Errorf("credential asked for %d times, want 1", src.calls.Load())
	}

	// The loopback page: once, no-store, no referrer, credential never in the URL.
	u, err := url.Parse(f.browser.pageURL)
	if err != nil {
		t.Fatal(err)
	}
	if host, _, _ := net.SplitHostPort(u.Host); u.Scheme != "http" || host != "127.0.0.1" || len(u.Path) < len("/join/")+32 || u.RawQuery != "" {
		t.Errorf("join page URL = %s, want http://127.0.0.1:PORT/join/RANDOM", u)
	}
	gotHeaders := []string{f.browser.pageHeader.Get("Cache-Control"), f.browser.pageHeader.Get("Referrer-Policy")}
	if diff := cmp.Diff([]string{"no-store", "no-referrer"}, gotHeaders); diff != "" {
		t.Errorf("join page Cache-Control, Referrer-Policy (-want +got):\n%s", diff)
	}
	if !strings.Contains(f.browser.pageBody, `<meta name="referrer" content="no-referrer">`) {
		t.Error("join page has no referrer meta")
	}
	if !strings.Contains(f.browser.pageBody, `action="https://airline.test/poppy/browser-session"`) {
		t.Errorf("join page does not post to the endpoint:\n%s", f.browser.pageBody)
	}
	if f.browser.secondStatus != http.StatusNotFound {
		t.Errorf("second request for the join page answered %d, want 404", f.browser.secondStatus)
	}
	if conn, err := net.Dial("tcp", u.Host); err == nil {
		conn.Close()
		t.Errorf("join page listener %s still accepts connections after Join", u.Host)
	}
}

func TestJoinFailures(t *testing.T) {
	_, otherKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		returnTo      string
		src           func(f *joinFixture) CredentialSource
		company       func(f *joinFixture) *Company
		wantErr       string
		wantCred      bool // the credential was asked for
		wantNavigate  bool // the browser navigated
		wantCleared   int
		wantSiteJoins int
	}{
		{
			name:     "untrusted key",
			returnTo: testsite.BookingURL(),
			src: func(f *joinFixture) CredentialSource {
				k := *f.signer
				k.Key = otherKey
				return &k
			},
			wantErr:       "joining Demo Airline (airline.test): the browser-session endpoint refused the credential (HTTP 400)",
			wantCred:      true,
			wantNavigate:  true,
			wantCleared:   1,
			wantSiteJoins: 1,
		},
		{
			name:     "off-site return_to",
			returnTo: "https://partner.test/",
			wantErr:  `joining Demo Airline (airline.test): return_to "https://partner.test/" is not an https URL on the Company's website`,
		},
		{
			name:     "look-alike return_to",
			returnTo: "https://airline.test@partner.test/",
			wantErr:  `joining Demo Airline (airline.test): return_to "https://airline.test@partner.test/" is not an https URL on the Company's website`,
		},
		{
			name:     "http return_to",
			returnTo: "http://airline.test/",
			wantErr:  `joining Demo Airline (airline.test): return_to "http://airline.test/" is not an https URL on the Company's website`,
		},
		{
			name:     "no-join company",
			returnTo: testsite.BookingURL(),
			company: func(f *joinFixture) *Company {
				c, _ := NoJoin("airline.test")
				return c
			},
			wantErr: "joining airline.test: the company has no browser-session endpoint (was it discovered?)",
		},
		{
			name:     "credential command fails",
			returnTo: testsite.BookingURL(),
			src: func(*joinFixture) CredentialSource {
				return CommandSource{Command: "printf SECRET; exit 2"}
			},
			wantErr:  "joining Demo Airline (airline.test): getting a credential: credential command: exit status 2",
			wantCred: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newJoinFixture(t)
			var inner CredentialSource = f.signer
			if tc.src != nil {
				inner = tc.src(f)
			}
			src := &countingSource{inner: inner}
			company := f.company
			if tc.company != nil {
				company = tc.company(f)
			}
			err := Join(testContext(t), f.browser, company, src, tc.returnTo, nil)
			if err == nil {
				t.Fatalf("Join succeeded, want %q", tc.wantErr)
			}
			if diff := cmp.Diff(tc.wantErr, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "eyJ") {
				t.Errorf("error holds a credential: %v", err)
			}
			if got := src.calls.Load() > 0; got != tc.wantCred {
				t.Errorf("credential asked: %v, want %v", got, tc.wantCred)
			}
			if got := f.browser.navigations > 0; got != tc.wantNavigate {
				t.Errorf("browser navigated: %v, want %v", got, tc.wantNavigate)
			}
			if f.browser.cleared != tc.wantCleared {
				t.Errorf("cookies cleared %d times, want %d", f.browser.cleared, tc.wantCleared)
			}
			if got := len(f.site.Joins()); got != tc.wantSiteJoins {
				t.Errorf("testsite saw %d joins, want %d", got, tc.wantSiteJoins)
			}
			if f.sessionCookie(t) != "" {
				t.Error("browser holds a session cookie after a failed join")
			}
		})
	}
}

// cannedBrowser plays the given requests through the watch, then ends
// every navigation where it is told to.
type cannedBrowser struct {
	requests []JoinRequest
	finalURL string // "" means stay on the loopback page
	status   int
	err      error
	cleared  int
	check    func(JoinRequest) bool
}

func (b *cannedBrowser) Navigate(ctx context.Context, u string) (string, int, error) {
	if _, _, _, err := get(ctx, &http.Client{}, u); err != nil {
		return "", 0, err
	}
	for _, r := range b.requests {
		if !b.check(r) {
			return "", 0, context.Cause(ctx)
		}
	}
	if b.finalURL == "" {
		return u, 200, b.err
	}
	return b.finalURL, b.status, b.err
}

func (b *cannedBrowser) WatchRequests(_ context.Context, check func(JoinRequest) bool) (func(), error) {
	b.check = check
	return func() {}, nil
}

func (b *cannedBrowser) Cookies(context.Context, string) ([]Cookie, error) { return nil, nil }

func (b *cannedBrowser) ClearCookies(context.Context) error {
	b.cleared++
	return errors.New("no cookies here")
}

func TestJoinEndsBadly(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer := &KeySigner{Key: priv, Issuer: "i", Subject: "s", SessionID: "x"}
	company := &Company{Domain: "airline.test", Endpoint: "https://airline.test/poppy/browser-session"}
	posted := JoinRequest{Method: "POST", URL: company.Endpoint, Document: true}
	tests := []struct {
		name    string
		b       *cannedBrowser
		wantErr string
	}{
		{"stays on the page", &cannedBrowser{},
			"joining airline.test: the browser stayed on the join page (the form was not submitted); clearing cookies also failed: no cookies here"},
		{"ends off-site", &cannedBrowser{finalURL: "https://partner.test/landing?x=1", status: 200},
			"joining airline.test: the browser never posted the credential to the browser-session endpoint; it ended at partner.test; clearing cookies also failed: no cookies here"},
		{"endpoint answers 500", &cannedBrowser{requests: []JoinRequest{posted}, finalURL: "https://airline.test/poppy/browser-session", status: 500},
			"joining airline.test: the browser-session endpoint answered HTTP 500, not a 303 redirect to return_to; clearing cookies also failed: no cookies here"},
		{"navigation fails", &cannedBrowser{finalURL: "x", err: errors.New("net::ERR_CONNECTION_REFUSED")},
			"joining airline.test: loading the join page: net::ERR_CONNECTION_REFUSED; clearing cookies also failed: no cookies here"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Join(testContext(t), tc.b, company, signer, "https://airline.test/bookings/x", nil)
			if err == nil {
				t.Fatalf("Join succeeded, want %q", tc.wantErr)
			}
			if diff := cmp.Diff(tc.wantErr, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if tc.b.cleared != 1 {
				t.Errorf("cookies cleared %d times, want 1", tc.b.cleared)
			}
		})
	}
}
