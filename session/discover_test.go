package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// startSite starts the demo airline for one test, trusting pub for joins.
func startSite(t *testing.T, opts *testsite.Options) *testsite.Site {
	t.Helper()
	site, err := testsite.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := site.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := site.Close(); err != nil {
			t.Error(err)
		}
	})
	return site
}

func poppyJSON(domain, endpoint, extensions string) []byte {
	return fmt.Appendf(nil, `{"protocol_version":"0.4","organization":{"name":"Demo Airline","domain":%q},
		"web":{"browser_session_endpoint":%q},"extensions":%s}`, domain, endpoint, extensions)
}

func TestDiscoverTestsite(t *testing.T) {
	site := startSite(t, nil)
	client := site.Client()
	const bc = `{"browser-control":[{"version":"1"}]}`
	endpoint := testsite.JoinEndpoint()
	want := &Company{
		Domain:     "airline.test",
		Name:       "Demo Airline",
		Endpoint:   endpoint,
		Extensions: []spec.Extension{spec.BrowserControlV1()},
	}
	tests := []struct {
		name      string
		doc       []byte // nil: the site's default
		company   string
		want      *Company
		wantWarns int
		wantErr   string
	}{
		{name: "default document", company: "airline.test", want: want},
		{name: "https url", company: "https://airline.test/bookings/bkg_4Rt9", want: want},
		{name: "www host", company: "www.airline.test", want: want},
		{name: "draft 0.1 extension shape", company: "airline.test", want: want, wantWarns: 1,
			doc: poppyJSON("airline.test", endpoint, `{"browser-control":{"version":"1"}}`)},
		{name: "wrong organization.domain", company: "airline.test",
			doc:     poppyJSON("partner.test", "https://partner.test/join", bc),
			wantErr: `discovering airline.test: poppy.json: organization.domain "partner.test" does not match`},
		{name: "no browser-control", company: "airline.test",
			doc:     poppyJSON("airline.test", endpoint, `{"operations":[{"version":"1"}]}`),
			wantErr: "discovering airline.test: poppy.json does not support browser-control v1: extensions does not list browser-control"},
		{name: "other browser-control version", company: "airline.test",
			doc:     poppyJSON("airline.test", endpoint, `{"browser-control":[{"version":"2"}]}`),
			wantErr: "discovering airline.test: poppy.json does not support browser-control v1"},
		{name: "http endpoint", company: "airline.test",
			doc:     poppyJSON("airline.test", "http://airline.test/poppy/browser-session", bc),
			wantErr: "discovering airline.test: poppy.json: web.browser_session_endpoint must be https"},
		{name: "no endpoint", company: "airline.test",
			doc:     []byte(`{"protocol_version":"0.4","organization":{"domain":"airline.test"},"extensions":` + bc + `}`),
			wantErr: "discovering airline.test: poppy.json does not support browser-control v1: web.browser_session_endpoint is missing"},
		{name: "malformed json", company: "airline.test", doc: []byte("{\"protocol_version\":\n"),
			wantErr: "discovering airline.test: poppy.json: invalid json"},
		{name: "http company url", company: "http://airline.test/",
			wantErr: "discovering http://airline.test/: company URL must use https, not http"},
		{name: "ip literal", company: "127.0.0.1",
			wantErr: `discovering 127.0.0.1: normalizing domain "127.0.0.1"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			site.SetPoppyJSON(tc.doc)
			got, warns, err := Discover(testContext(t), client, tc.company)
			if tc.wantErr != "" {
				checkOneLineError(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("Discover(%q): %v", tc.company, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("company (-want +got):\n%s", diff)
			}
			if len(warns) != tc.wantWarns {
				t.Errorf("warnings = %v, want %d", warns, tc.wantWarns)
			}
		})
	}
	if client.CheckRedirect != nil {
		t.Error("Discover changed the caller's client")
	}
}

// checkOneLineError checks that err starts with prefix and is one line.
func checkOneLineError(t *testing.T, err error, prefix string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %q...", prefix)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		t.Errorf("error = %q\nwant prefix %q", msg, prefix)
	}
	if strings.ContainsAny(msg, "\r\n") {
		t.Errorf("error is not one line: %q", msg)
	}
}

// redirectServer is an HTTPS server that answers for any *.test host: a
// client from it dials the server whatever the host, and verifies its
// certificate as example.com.
func redirectServer(t *testing.T, h http.Handler) *http.Client {
	t.Helper()
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	client := srv.Client()
	tr := client.Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.ServerName = "example.com"
	addr := srv.Listener.Addr().String()
	var d net.Dialer
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}
	client.Transport = tr
	return client
}

func TestDiscoverRedirects(t *testing.T) {
	const bc = `{"browser-control":[{"version":"1"}]}`
	mux := http.NewServeMux()
	// hops.test redirects n times, from /.well-known/poppy.json through /hop/1..n.
	mux.HandleFunc("/hop/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		left, _ := strconv.Atoi(r.URL.Query().Get("left"))
		if left == 0 {
			w.Write(poppyJSON(r.URL.Query().Get("domain"), "https://"+r.URL.Query().Get("domain")+"/join", bc))
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d?left=%d&domain=%s", n+1, left-1, r.URL.Query().Get("domain")), http.StatusFound)
	})
	mux.HandleFunc("five.test/.well-known/poppy.json", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/hop/1?left=4&domain=five.test", http.StatusFound)
	})
	mux.HandleFunc("six.test/.well-known/poppy.json", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/hop/1?left=5&domain=six.test", http.StatusFound)
	})
	mux.HandleFunc("plain.test/.well-known/poppy.json", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://plain.test/poppy.json", http.StatusMovedPermanently)
	})
	// moved.test redirects to another host; the document there must still
	// speak for moved.test.
	mux.HandleFunc("moved.test/.well-known/poppy.json", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://cdn.test/moved.json", http.StatusFound)
	})
	mux.HandleFunc("cdn.test/moved.json", func(w http.ResponseWriter, r *http.Request) {
		w.Write(poppyJSON("moved.test", "https://moved.test/join", bc))
	})
	mux.HandleFunc("hijack.test/.well-known/poppy.json", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://cdn.test/other.json", http.StatusFound)
	})
	mux.HandleFunc("cdn.test/other.json", func(w http.ResponseWriter, r *http.Request) {
		w.Write(poppyJSON("cdn.test", "https://cdn.test/join", bc))
	})
	mux.HandleFunc("big.test/.well-known/poppy.json", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"protocol_version":"0.4","pad":"`))
		w.Write([]byte(strings.Repeat("x", MaxDocumentSize)))
		w.Write([]byte(`"}`))
	})
	mux.HandleFunc("gone.test/.well-known/poppy.json", http.NotFound)
	client := redirectServer(t, mux)

	tests := []struct {
		company      string
		wantEndpoint string
		wantErr      string
	}{
		{company: "five.test", wantEndpoint: "https://five.test/join"},
		{company: "six.test", wantErr: "discovering six.test: more than 5 redirects"},
		{company: "plain.test", wantErr: "discovering plain.test: redirect from https://plain.test/.well-known/poppy.json to http://plain.test/poppy.json leaves HTTPS"},
		{company: "moved.test", wantEndpoint: "https://moved.test/join"},
		{company: "hijack.test", wantErr: `discovering hijack.test: poppy.json: organization.domain "cdn.test" does not match`},
		{company: "big.test", wantErr: "discovering big.test: poppy.json is larger than 1048576 bytes"},
		{company: "gone.test", wantErr: "discovering gone.test: GET https://gone.test/.well-known/poppy.json: HTTP 404"},
	}
	for _, tc := range tests {
		t.Run(tc.company, func(t *testing.T) {
			got, _, err := Discover(testContext(t), client, tc.company)
			if tc.wantErr != "" {
				checkOneLineError(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("Discover(%q): %v", tc.company, err)
			}
			if diff := cmp.Diff([]string{tc.company, tc.wantEndpoint}, []string{got.Domain, got.Endpoint}); diff != "" {
				t.Errorf("domain, endpoint (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiscoverUnreachable(t *testing.T) {
	// A client that trusts nothing: the certificate check fails.
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the failed handshake
	srv.StartTLS()
	t.Cleanup(srv.Close)
	_, _, err := Discover(testContext(t), &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, srv.Listener.Addr().String())
		},
	}}, "airline.test")
	checkOneLineError(t, err, "discovering airline.test: GET https://airline.test/.well-known/poppy.json: tls: failed to verify certificate")
}

func TestCompanyHosts(t *testing.T) {
	c, err := NoJoin("https://Airline.test/check-in")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&Company{Domain: "airline.test", Extensions: []spec.Extension{spec.BrowserControlV1()}}, c); diff != "" {
		t.Errorf("NoJoin (-want +got):\n%s", diff)
	}
	hosts := map[string]bool{
		"airline.test":           true,
		"pay.airline.test":       true,
		"www.airline.test:443":   true,
		"partner.test":           false,
		"evilairline.test":       false,
		"airline.test.evil.test": false,
	}
	for host, want := range hosts {
		if got := c.IsCompanyHost(host); got != want {
			t.Errorf("IsCompanyHost(%q) = %v, want %v", host, got, want)
		}
	}
	urls := map[string]bool{
		"https://pay.airline.test/frame":       true,
		"https://airline.test@partner.test/":   false,
		"https://partner.test/?u=airline.test": false,
		"not a url":                            false,
	}
	for u, want := range urls {
		if got := c.IsCompanyURL(u); got != want {
			t.Errorf("IsCompanyURL(%q) = %v, want %v", u, got, want)
		}
	}
	// An IPv4 literal is a development host for --no-join: that address only.
	if ip, err := NoJoin("10.0.0.1"); err != nil || !ip.IsCompanyURL("https://10.0.0.1:8443/") || ip.IsCompanyURL("https://10.0.0.2/") {
		t.Errorf("NoJoin(10.0.0.1) = %+v, %v; want that address only", ip, err)
	}
	for _, bad := range []string{"", "http://airline.test", "airline.test/path", "[::1]", "10.0.0.1:80"} {
		if _, err := NoJoin(bad); err == nil {
			t.Errorf("NoJoin(%q) succeeded, want an error", bad)
		}
	}
}

// TestDiscoverErrUnreachable: only a site that does not answer, or answers
// that it is down, is ErrUnreachable (worth trying again); an answer that
// stays wrong is not.
func TestDiscoverErrUnreachable(t *testing.T) {
	status := func(code int) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) })
	}
	refused := func() *http.Client {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		}}}
	}
	untrusted := func() *http.Client {
		srv := httptest.NewUnstartedServer(http.NotFoundHandler())
		srv.Config.ErrorLog = log.New(io.Discard, "", 0)
		srv.StartTLS()
		t.Cleanup(srv.Close)
		return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, srv.Listener.Addr().String())
		}}}
	}
	for _, c := range []struct {
		name   string
		client *http.Client
		want   bool
	}{
		{"connection refused", refused(), true},
		{"503", redirectServer(t, status(http.StatusServiceUnavailable)), true},
		{"502", redirectServer(t, status(http.StatusBadGateway)), true},
		{"429", redirectServer(t, status(http.StatusTooManyRequests)), true},
		{"404", redirectServer(t, status(http.StatusNotFound)), false},
		{"403", redirectServer(t, status(http.StatusForbidden)), false},
		{"not JSON", redirectServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "<html>") })), false},
		{"untrusted certificate", untrusted(), false},
		{"redirect off HTTPS", redirectServer(t, http.RedirectHandler("http://example.com/", http.StatusFound)), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Discover(testContext(t), c.client, "example.com")
			if err == nil {
				t.Fatal("Discover succeeded")
			}
			if got := errors.Is(err, ErrUnreachable); got != c.want {
				t.Errorf("errors.Is(%v, ErrUnreachable) = %v, want %v", err, got, c.want)
			}
		})
	}
}
