package supervisor_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestCompanyRetriesEnd: a Company whose site never answers is tried
// again for RetryCompanyFor, CompanyPending saying so meanwhile, then
// Start fails with a final company_unreachable error and no browser is
// launched; without RetryCompanyFor the first failure is final.
func TestCompanyRetriesEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	signer, _, err := session.NewDemoSigner()
	if err != nil {
		t.Fatal(err)
	}
	site, err := testsite.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := site.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	client := site.Client()
	site.Close() // its address refuses connections from now on
	for _, retry := range []time.Duration{0, 2 * time.Second} {
		srv := supervisor.NewServer(&supervisor.Options{
			Company: testsite.CompanyDomain,
			Join: supervisor.JoinOptions{
				Credentials:     signer,
				HTTPClient:      client,
				RetryCompanyFor: retry,
			},
		})
		started := make(chan error, 1)
		begin := time.Now()
		go func() { started <- srv.Start(ctx) }()
		if retry > 0 {
			for srv.CompanyPending() == nil {
				select {
				case err := <-started:
					t.Fatalf("Start ended (%v) before CompanyPending said why it waits", err)
				case <-ctx.Done():
					t.Fatal("CompanyPending never said why Start waits")
				case <-time.After(10 * time.Millisecond):
				}
			}
			var ue *supervisor.CompanyUnreachableError
			if err := srv.CompanyPending(); !errors.As(err, &ue) || ue.Final || !strings.Contains(err.Error(), testsite.CompanyDomain) {
				t.Errorf("CompanyPending while retrying: %v, want a CompanyUnreachableError naming the Company, not final", err)
			}
		}
		err := <-started
		var ue *supervisor.CompanyUnreachableError
		if !errors.As(err, &ue) || !ue.Final || ue.Reason() != spec.ReasonCompanyUnreachable || !errors.Is(err, session.ErrUnreachable) {
			t.Errorf("retry %s: Start: %v, want a final CompanyUnreachableError", retry, err)
		}
		if retry > 0 && time.Since(begin) < retry {
			t.Errorf("Start gave up after %s, before RetryCompanyFor (%s)", time.Since(begin), retry)
		}
		if srv.CompanyPending() != nil {
			t.Errorf("CompanyPending after the retries ended: %v, want nil", srv.CompanyPending())
		}
		if err := srv.Ready(ctx); !errors.As(err, &ue) {
			t.Errorf("Ready after the retries ended: %v, want the CompanyUnreachableError", err)
		}
		if err := srv.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}
}
