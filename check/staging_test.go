package check_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/check"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestStaging checks the demo airline as a staging server: its certificate
// is issued by a CA the system does not trust and its names resolve
// nowhere, so discovery and the browser reach it only through CAFile and
// Resolve (no --host-resolver-rules, no SPKI pin of the test's own).
func TestStaging(t *testing.T) {
	if env == nil {
		t.Skip("no Chromium (-short)")
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, env.site.CAPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	var resolve []string
	for _, h := range testsite.Hosts() {
		resolve = append(resolve, h+"="+env.site.Addr())
	}
	staging := func(t *testing.T, caFile string) check.PageReport {
		c, err := check.New(t.Context(), &check.Options{Chromium: env.chromium, CAFile: caFile, Resolve: resolve, NoProbe: true, Watch: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		return c.CheckPage(ctx, testsite.CheckInURL())
	}
	t.Run("trusted", func(t *testing.T) {
		p := staging(t, ca)
		if p.Status != check.StatusChecked {
			t.Fatalf("status %s: %s", p.Status, p.Error)
		}
		if p.Discovery == nil || !p.Discovery.OK {
			t.Errorf("discovery %+v, want ok through --ca-file and --resolve", p.Discovery)
		}
		if len(p.Marks) < 2 || p.Controller == nil || !p.Controller.Reads {
			t.Errorf("the page was not checked as the Company's: marks %d, controller %+v", len(p.Marks), p.Controller)
		}
	})
	t.Run("untrusted", func(t *testing.T) {
		// Without the CA nothing trusts the server: discovery fails, and so
		// does the page's load in the browser.
		p := staging(t, "")
		if p.Discovery == nil || p.Discovery.OK || !strings.Contains(p.Discovery.Error, "--ca-file") {
			t.Errorf("discovery %+v, want a certificate error", p.Discovery)
		}
		if p.Status != check.StatusFailed {
			t.Errorf("status %s, want failed: the browser must not trust the server without --ca-file", p.Status)
		} else if !strings.Contains(p.Error, "--ca-file") {
			t.Errorf("error %q does not name --ca-file", p.Error)
		}
	})
}

// TestIPLiteral checks a page in development served over plain HTTP on a
// loopback address, as --no-discovery http://127.0.0.1:PORT/ names it: the
// page gets navigator.poppy and its marks are checked.
func TestIPLiteral(t *testing.T) {
	if env == nil {
		t.Skip("no Chromium (-short)")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><title>Dev</title><link rel="icon" href="data:,">
<p id="who"></p>
<form action="/done" method="post" data-poppy-user-step="submission"><button>Pay</button></form>
<script>document.getElementById("who").textContent = navigator.poppy ? navigator.poppy.controller : "none";</script>`))
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	c, err := check.New(t.Context(), &check.Options{Chromium: env.chromium, NoDiscovery: true, NoProbe: true, Watch: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	p := c.CheckPage(ctx, "http://127.0.0.1:"+port+"/")
	if p.Status != check.StatusChecked {
		t.Fatalf("status %s: %s", p.Status, p.Error)
	}
	if len(p.Marks) != 1 || p.Controller == nil || !p.Controller.Reads {
		t.Errorf("marks %+v, controller %+v: want one mark and navigator.poppy read", p.Marks, p.Controller)
	}
}
