package main

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// onceSource hands out the same credential every time: a replay.
type onceSource struct {
	inner session.CredentialSource
	mu    sync.Mutex
	tok   session.Secret
}

func (o *onceSource) Credential(ctx context.Context, req session.CredentialRequest) (session.Secret, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.tok.IsZero() {
		tok, err := o.inner.Credential(ctx, req)
		if err != nil {
			return session.Secret{}, err
		}
		o.tok = tok
	}
	return o.tok, nil
}

// TestJoinFailures: each failure ends with one clear line and no joined
// browser (docs/core-protocol.md: a refusal is 400 and no cookie).
func TestJoinFailures(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	site, signer, err := startDemoSite()
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	untrusted, _, err := session.NewDemoSigner()
	if err != nil {
		t.Fatal(err)
	}
	expired := *signer
	expired.Now = func() time.Time { return time.Now().Add(-5 * time.Minute) }
	replay := &onceSource{inner: signer}

	const noExtension = `{"protocol_version":"0.4","organization":{"name":"Demo Airline","domain":"airline.test"},"web":{"browser_session_endpoint":"https://airline.test/poppy/browser-session"},"extensions":{}}`
	const httpEndpoint = `{"protocol_version":"0.4","organization":{"name":"Demo Airline","domain":"airline.test"},"web":{"browser_session_endpoint":"http://airline.test/poppy/browser-session"},"extensions":{"browser-control":[{"version":"1"}]}}`

	cases := []struct {
		name      string
		poppyJSON string
		creds     session.CredentialSource
		returnTo  string
		wantErr   string
		refusedBy string // the airline's reason, when it got that far
	}{
		{name: "bad signature", creds: untrusted, wantErr: "HTTP 400", refusedBy: testsite.ReasonBadSignature},
		{name: "expired credential", creds: &expired, wantErr: "HTTP 400", refusedBy: testsite.ReasonExpired},
		{name: "replayed jti (first use)", creds: replay},
		{name: "replayed jti", creds: replay, wantErr: "HTTP 400", refusedBy: testsite.ReasonReplayed},
		{name: "return_to off-site", creds: signer, returnTo: "https://partner.test/", wantErr: "partner.test"},
		{name: "no browser-control in poppy.json", poppyJSON: noExtension, creds: signer, wantErr: "browser-control"},
		{name: "http endpoint", poppyJSON: httpEndpoint, creds: signer, wantErr: "https"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			site.Reset()
			if c.poppyJSON != "" {
				site.SetPoppyJSON([]byte(c.poppyJSON))
				defer site.SetPoppyJSON(nil)
			}
			sv := supervisor.New(&supervisor.Options{
				Company: testsite.CompanyDomain,
				Join: supervisor.JoinOptions{
					Credentials: c.creds,
					HTTPClient:  site.Client(),
					ReturnTo:    c.returnTo,
				},
				Browser: supervisor.BrowserOptions{Args: site.BrowserArgs()},
			})
			err := sv.Start(ctx)
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("join: %v", err)
				}
				if err := sv.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
				return
			}
			if err == nil {
				sv.Close()
				t.Fatal("the join succeeded")
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.Contains(msg, c.wantErr) {
				t.Errorf("error %q: want one line mentioning %q", msg, c.wantErr)
			}
			for _, j := range site.Joins() {
				if j.OK {
					t.Errorf("the airline accepted a join: %+v", j)
				}
				if c.refusedBy != "" && j.Reason != c.refusedBy {
					t.Errorf("the airline refused for %q, want %q", j.Reason, c.refusedBy)
				}
			}
			if c.refusedBy != "" && len(site.Joins()) == 0 {
				t.Error("the join never reached the airline")
			}
		})
	}
}

// TestCommandErrorsAreOneLine runs the binary: a failure is one line on
// stderr and exit status 1; a usage error (an unknown command or flag, a
// missing argument) is one line and exit status 2; --help prints the usage
// and exits 0; --version and version print the same version.
func TestCommandErrorsAreOneLine(t *testing.T) {
	bin := buildBinary(t)
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"mcp", "--company", "https://127.0.0.1"}, 1}, // an IP literal is never a Company
		{[]string{"mcp"}, 2},
		{[]string{"nonsense"}, 2},
		{[]string{}, 2},
		{[]string{"mcp", "--no-such-flag"}, 2},
		{[]string{"demo", "--bogus=1"}, 2},
		{[]string{"audit"}, 2},
		{[]string{"audit", "a", "b"}, 2},
		{[]string{"run", "--company", "x"}, 2},
		{[]string{"open-live", "extra"}, 2},
	} {
		cmd := exec.Command(bin, c.args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != c.code {
			t.Errorf("%v: exit %v, want status %d", c.args, err, c.code)
		}
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if c.code == 2 && len(lines) != 1 {
			t.Errorf("%v: %d lines on stderr, want one:\n%s", c.args, len(lines), stderr.String())
		}
		if last := lines[len(lines)-1]; !strings.HasPrefix(last, "poppy-browser: ") {
			t.Errorf("%v: last line %q is not one clear error", c.args, last)
		}
	}
	for _, args := range [][]string{{"--help"}, {"mcp", "--help"}, {"audit", "-h"}} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "usage: poppy-browser") {
			t.Errorf("%v: %v, want the usage and exit 0:\n%s", args, err, out)
		}
	}
	a, err1 := exec.Command(bin, "--version").Output()
	b, err2 := exec.Command(bin, "version").Output()
	if err1 != nil || err2 != nil || string(a) != string(b) || !strings.HasPrefix(string(a), "poppy-browser ") || strings.Count(string(a), "\n") != 1 {
		t.Errorf("--version %q (%v), version %q (%v): want one equal line", a, err1, b, err2)
	}
}
