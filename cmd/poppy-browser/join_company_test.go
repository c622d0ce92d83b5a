package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestJoinBadCompanyAnswers: in real Chromium, a Company whose endpoint
// accepts the credential but does not answer the 303 to return_to with a
// session cookie gets no joined runtime: one line naming the Company and
// its answer, no join in the audit log, and a 307 never re-sends the
// credential to the other host.
func TestJoinBadCompanyAnswers(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	site, signer, err := startDemoSite()
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	const company = "joining Demo Airline (airline.test): "
	cases := []struct {
		name    string
		answer  testsite.JoinAnswer
		wantErr string
	}{
		{"200", testsite.JoinAnswerOK, company + "the browser-session endpoint answered HTTP 200, not a 303 redirect to return_to"},
		{"303 off-site", testsite.JoinAnswerOffSite, company + "the browser-session endpoint redirected to partner.test, not to return_to"},
		{"307 to another host", testsite.JoinAnswerTemporaryRedirect, company + "the browser-session endpoint answered a redirect that re-sends the credential (307 or 308) to partner.test; refused before it was sent"},
		{"no cookie", testsite.JoinAnswerNoCookie, company + "the browser-session endpoint redirected to return_to but set no session cookie"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			site.Reset()
			site.SetJoinAnswer(c.answer)
			defer site.SetJoinAnswer(testsite.JoinAnswerSeeOther)
			auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
			sv := supervisor.New(&supervisor.Options{
				Company: testsite.CompanyDomain,
				Join:    supervisor.JoinOptions{Credentials: signer, HTTPClient: site.Client()},
				Browser: supervisor.BrowserOptions{Args: site.BrowserArgs()},
				Audit:   supervisor.AuditOptions{File: auditPath},
			})
			err := sv.Start(ctx)
			if err == nil {
				sv.Close()
				t.Fatal("the join succeeded")
			}
			if err.Error() != c.wantErr {
				t.Errorf("error = %q\nwant    %q", err, c.wantErr)
			}
			if joins := site.Joins(); len(joins) != 1 || !joins[0].OK {
				t.Errorf("the airline saw joins %+v, want the one it accepted", joins)
			}
			for _, r := range site.Requests(testsite.PartnerHost) {
				if r.Method != "GET" {
					t.Errorf("partner.test got a %s %s: the credential left the Company", r.Method, r.Path)
				}
			}
			if c.answer == testsite.JoinAnswerOffSite && len(site.Requests(testsite.PartnerHost)) != 0 {
				t.Errorf("the browser went on to partner.test after the refusal")
			}
			log, _ := os.ReadFile(auditPath)
			if strings.Contains(string(log), `"join"`) {
				t.Errorf("the audit log records a join:\n%s", log)
			}
		})
	}
}

// TestJoinShowsDiscoveryWarnings: what discovery warns about reaches the
// user, and the join still goes ahead.
func TestJoinShowsDiscoveryWarnings(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	site, signer, err := startDemoSite()
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	site.SetPoppyJSON([]byte(`{"protocol_version":"0.4","organization":{"name":"Demo Airline","domain":"airline.test"},` +
		`"web":{"browser_session_endpoint":"https://airline.test/poppy/browser-session"},` +
		`"extensions":{"browser-control":{"version":"1"},"operations":[{"version":2}]}}`))
	var messages strings.Builder
	sv := supervisor.New(&supervisor.Options{
		Company: testsite.CompanyDomain,
		Join:    supervisor.JoinOptions{Credentials: signer, HTTPClient: site.Client()},
		Browser: supervisor.BrowserOptions{Args: site.BrowserArgs()},
		Live:    supervisor.LiveOptions{UserMessages: &messages},
	})
	if err := sv.Start(ctx); err != nil {
		t.Fatalf("join: %v", err)
	}
	if err := sv.Close(); err != nil {
		t.Errorf("closing the runtime: %v", err)
	}
	for _, want := range []string{
		"poppy-browser: warning: extensions.browser-control is a single object (draft 0.1 shape)",
		"poppy-browser: warning: extensions.operations entry 1: version must be a string, not a json number, so it is ignored",
	} {
		if !strings.Contains(messages.String(), want) {
			t.Errorf("the user was not told %q; they saw:\n%s", want, messages.String())
		}
	}
}
