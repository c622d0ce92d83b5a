package testsite_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startSite starts a Site on loopback with debug logs captured in the
// returned buffer, and closes it when the test ends.
func startSite(t *testing.T, opts *testsite.Options) (*testsite.Site, *syncBuffer) {
	t.Helper()
	if opts == nil {
		opts = &testsite.Options{}
	}
	logs := &syncBuffer{}
	opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, err := testsite.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s, logs
}

// noRedirect returns s.Client() that stops at the first response.
func noRedirect(s *testsite.Site) *http.Client {
	c := s.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

// get fetches url with c and returns the response and its body.
func get(t *testing.T, c *http.Client, url string, header http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	return do(t, c, req)
}

// do sends req with c and returns the response and its whole body.
func do(t *testing.T, c *http.Client, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

func TestPoppyJSON(t *testing.T) {
	s, _ := startSite(t, nil)
	resp, body := get(t, s.Client(), "https://airline.test/.well-known/poppy.json", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status = %d, want 200", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	var got any
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"protocol_version": "0.4",
		"organization":     map[string]any{"name": "Demo Airline", "domain": "airline.test"},
		"web":              map[string]any{"browser_session_endpoint": "https://airline.test/poppy/browser-session"},
		"extensions":       map[string]any{"browser-control": []any{map[string]any{"version": "1"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("poppy.json (-want +got):\n%s", diff)
	}
	doc, warnings, err := spec.ParseDocument([]byte(body), testsite.CompanyDomain)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("spec.ParseDocument: %v, warnings %v", err, warnings)
	}
	if err := doc.RequireBrowserControl(); err != nil {
		t.Error(err)
	}
	if testsite.JoinEndpoint() != "https://airline.test/poppy/browser-session" {
		t.Errorf("JoinEndpoint() = %q", testsite.JoinEndpoint())
	}

	custom := []byte(`{"protocol_version":"0.4","organization":{"name":"X","domain":"airline.test"}}`)
	s.SetPoppyJSON(custom)
	if _, body := get(t, s.Client(), "https://airline.test/.well-known/poppy.json", nil); body != string(custom) {
		t.Errorf("after SetPoppyJSON body = %s, want %s", body, custom)
	}
	s.SetPoppyJSON(nil)
	if _, body := get(t, s.Client(), "https://airline.test/.well-known/poppy.json", nil); !strings.Contains(body, "browser-control") {
		t.Errorf("after SetPoppyJSON(nil) body = %s, want the default document", body)
	}
}

func TestPages(t *testing.T) {
	s, _ := startSite(t, nil)
	c := noRedirect(s)
	tests := []struct {
		url      string
		status   int
		contains []string
		lacks    []string
	}{
		{url: "https://airline.test/", status: 200, contains: []string{"Demo Airline", "Guest"}},
		{url: "https://www.airline.test/bookings/bkg_4Rt9", status: 200, contains: []string{
			"Booking bkg_4Rt9", `href="/bookings/bkg_4Rt9/check-in">Check in</a>`,
		}},
		{url: "https://airline.test/bookings/bkg_nope", status: 404},
		{url: "https://airline.test/bookings/bkg_4Rt9/check-in", status: 200, contains: []string{
			`<form id="check-in" action="/bookings/bkg_4Rt9/check-in" method="post" data-poppy-user-step="submission" toolname="check_in" tooldescription="Check in for this booking with a seat (aisle, window or middle).">`,
			`<select name="seat">`, `<option value="aisle">`, `<option value="window">`, `<option value="middle">`,
			`<input name="passport_number" autocomplete="off" data-poppy-user-step="interaction">`,
			`<input type="hidden" name="controller">`,
			`<button type="submit">Check in</button>`,
			`<button type="submit" form="check-in" name="upgrade" value="1">Upgrade seat</button>`,
			`This step is for you to complete`,
			`src="https://pay.airline.test/frame"`, `src="https://partner.test/frame"`,
			`/static/check-in.js`, `/static/ping.js`, `/static/report.js`, `/static/webmcp.js`, `/static/site.css`, `/static/logo.svg`,
		}},
		{url: "https://airline.test/fixtures/check-in-unmarked", status: 200,
			contains: []string{`action="/bookings/bkg_4Rt9/check-in"`, `name="controller"`},
			lacks:    []string{"data-poppy-user-step", "This step is for you to complete"}},
		{url: "https://airline.test/fixtures/popup", status: 200, contains: []string{`target="_blank"`, `id="open-popup"`}},
		{url: "https://airline.test/fixtures/poppy-tamper", status: 200, contains: []string{`id="after"`, "/static/tamper.js"}},
		{url: "https://airline.test/fixtures/redirect-offsite", status: 302},
		{url: "https://pay.airline.test/frame", status: 200, contains: []string{"Payment", "/static/report.js"}},
		{url: "https://partner.test/frame", status: 200, contains: []string{"Partner offers", "/static/report.js"}},
		{url: "https://partner.test/landing", status: 200, contains: []string{"Partner landing page"}},
		{url: "https://partner.test/bookings/bkg_4Rt9", status: 404},
		{url: "https://partner.test/static/report.js", status: 200, contains: []string{"navigator.poppy"}},
		{url: "https://airline.test/static/site.css", status: 200},
		{url: "https://pay.airline.test/api/ping", status: 200, contains: []string{`"ok":true`}},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			resp, body := get(t, c, tc.url, nil)
			if resp.StatusCode != tc.status {
				t.Fatalf("status = %d, want %d", resp.StatusCode, tc.status)
			}
			if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", cc)
			}
			for _, s := range tc.contains {
				if !strings.Contains(body, s) {
					t.Errorf("body lacks %q", s)
				}
			}
			for _, s := range tc.lacks {
				if strings.Contains(body, s) {
					t.Errorf("body contains %q", s)
				}
			}
		})
	}
	// The certificate names only our hosts, so send an unknown Host header
	// over a connection to airline.test, as Chromium would after its SPKI pin.
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "https://airline.test/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "unknown.test"
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("unknown host status = %d, want 421", resp.StatusCode)
	}

	resp, _ = get(t, c, "https://airline.test/fixtures/redirect-offsite", nil)
	if loc := resp.Header.Get("Location"); loc != "https://partner.test/landing" {
		t.Errorf("redirect-offsite Location = %q, want https://partner.test/landing", loc)
	}
}

func TestRequestsRecordedPerHost(t *testing.T) {
	s, _ := startSite(t, nil)
	c := s.Client()
	get(t, c, "https://airline.test/api/ping", http.Header{"Poppy-Extensions": {`"browser-control";v="1"`}})
	get(t, c, "https://partner.test/frame", nil)

	air := s.Requests("airline.test")
	if len(air) != 1 || air[0].Method != "GET" || air[0].Path != "/api/ping" {
		t.Fatalf("airline.test requests = %+v, want one GET /api/ping", air)
	}
	if got := air[0].Header.Get("Poppy-Extensions"); got != `"browser-control";v="1"` {
		t.Errorf("airline.test Poppy-Extensions = %q", got)
	}
	if air[0].Time.IsZero() {
		t.Error("request time is zero")
	}
	partner := s.Requests("partner.test")
	if len(partner) != 1 || partner[0].Path != "/frame" {
		t.Fatalf("partner.test requests = %+v, want one GET /frame", partner)
	}
	if _, ok := partner[0].Header["Poppy-Extensions"]; ok {
		t.Error("partner.test request has Poppy-Extensions")
	}
	if got := s.Requests("www.airline.test"); len(got) != 0 {
		t.Errorf("www.airline.test requests = %+v, want none", got)
	}

	// Callers get copies.
	air[0].Header.Set("Poppy-Extensions", "changed")
	if got := s.Requests("airline.test")[0].Header.Get("Poppy-Extensions"); got == "changed" {
		t.Error("Requests returned the recorded header, not a copy")
	}

	s.Reset()
	if got := s.Requests("airline.test"); len(got) != 0 {
		t.Errorf("after Reset airline.test requests = %+v, want none", got)
	}
}

func TestFrameReports(t *testing.T) {
	s, _ := startSite(t, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	done := make(chan testsite.FrameReport, 1)
	go func() {
		f, err := s.WaitFrameReport(ctx, func(f testsite.FrameReport) bool { return f.Host == "pay.airline.test" })
		if err != nil {
			t.Errorf("waiting for a frame report from pay.airline.test: %v", err)
		}
		done <- f
	}()
	body := `{"event":"load","hasPoppy":true,"controller":"agent","keys":["controller"]}`
	resp, err := s.Client().Post("https://pay.airline.test/report", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("status = %d, want 204", resp.StatusCode)
	}
	want := testsite.FrameReport{Host: "pay.airline.test", Event: "load", HasPoppy: true, Controller: "agent", Keys: []string{"controller"}}
	select {
	case got := <-done:
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("WaitFrameReport (-want +got):\n%s", diff)
		}
	case <-time.After(time.Minute):
		t.Fatal("waited a minute for WaitFrameReport to return, past its 30 s context")
	}

	resp, err = s.Client().Post("https://partner.test/report", "application/json",
		strings.NewReader(`{"event":"message","hasPoppy":false,"controller":null,"keys":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	wantAll := []testsite.FrameReport{want, {Host: "partner.test", Event: "message", Keys: []string{}}}
	if diff := cmp.Diff(wantAll, s.FrameReports()); diff != "" {
		t.Errorf("FrameReports (-want +got):\n%s", diff)
	}
}

func TestBrowserArgs(t *testing.T) {
	s, _ := startSite(t, nil)
	_, port, _ := strings.Cut(s.Addr(), ":")
	want := []string{
		"--host-resolver-rules=MAP *.test 127.0.0.1:" + port + ", EXCLUDE localhost",
		"--ignore-certificate-errors-spki-list=" + s.SPKIHash(),
	}
	if diff := cmp.Diff(want, s.BrowserArgs()); diff != "" {
		t.Errorf("BrowserArgs (-want +got):\n%s", diff)
	}
	if len(s.SPKIHash()) != 44 {
		t.Errorf("SPKIHash = %q, want 44 base64 characters", s.SPKIHash())
	}
	if _, err := s.Client().Get("https://example.com/"); err == nil {
		t.Error("Client reached a host outside *.test")
	}
}

// TestDirectoryPagesAnswer: every page the directory lists (what the
// testsite command prints) is served.
func TestDirectoryPagesAnswer(t *testing.T) {
	s, _ := startSite(t, nil)
	for _, l := range testsite.Directory() {
		resp, err := s.Client().Get(l.URL)
		if err != nil {
			t.Errorf("%s %s: %v", l.Group, l.Name, err)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s %s (%s): HTTP %d, want 200", l.Group, l.Name, l.URL, resp.StatusCode)
		}
	}
}
