package supervisor

import (
	"strings"
	"testing"
)

func TestResolveRules(t *testing.T) {
	rules, err := parseResolve([]string{"Airline.Test.=10.0.0.5", "pay.airline.test=127.0.0.1:8443", "v6.test=[::1]:443"})
	if err != nil {
		t.Fatal(err)
	}
	for hostport, want := range map[string]string{
		"airline.test:443":     "10.0.0.5:443",
		"AIRLINE.TEST:8080":    "10.0.0.5:8080",
		"pay.airline.test:443": "127.0.0.1:8443",
		"v6.test:443":          "[::1]:443",
		"www.airline.test:443": "www.airline.test:443", // exact names only, as Chromium's MAP without a wildcard
		"partner.test:443":     "partner.test:443",
	} {
		if got := dialTarget(rules, hostport); got != want {
			t.Errorf("dialTarget(%s) = %s, want %s", hostport, got, want)
		}
	}
	for _, bad := range []string{"airline.test", "airline.test=", "=10.0.0.5", "airline.test=example.com", "airline.test=10.0.0.5:http", "a:b=10.0.0.5"} {
		if _, err := parseResolve([]string{bad}); err == nil || !strings.Contains(err.Error(), "--resolve") {
			t.Errorf("parseResolve(%q) = %v, want an error naming --resolve", bad, err)
		}
	}
}

func TestCAFileErrors(t *testing.T) {
	o := Options{Browser: BrowserOptions{CAFile: "/nonexistent/ca.pem"}}
	if _, err := o.Client(); err == nil || !strings.Contains(err.Error(), "--ca-file") {
		t.Errorf("Client with a missing CA file: %v, want an error naming --ca-file", err)
	}
	o = Options{Browser: BrowserOptions{CAFile: "/dev/null"}}
	if _, err := o.Client(); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("Client with an empty CA file: %v, want no PEM certificate", err)
	}
}
