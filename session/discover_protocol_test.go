package session

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestDiscoverProtocolChoices covers the decisions of PROTOCOL.md that
// discovery makes: IDNs in both forms, invalid punycode, public suffixes,
// userinfo, and warnings that reach the caller with the real problem named.
func TestDiscoverProtocolChoices(t *testing.T) {
	const bc = `{"browser-control":[{"version":"1"}]}`
	mux := http.NewServeMux()
	mux.HandleFunc("xn--bcher-kva.test/.well-known/poppy.json", func(w http.ResponseWriter, r *http.Request) {
		w.Write(poppyJSON("bücher.test", "https://pay.xn--bcher-kva.test/join", bc))
	})
	mux.HandleFunc("www.test/.well-known/poppy.json", func(w http.ResponseWriter, r *http.Request) {
		w.Write(poppyJSON("test", "https://www.test/join", bc))
	})
	mux.HandleFunc("old.test/.well-known/poppy.json", func(w http.ResponseWriter, r *http.Request) {
		w.Write(poppyJSON("old.test", "https://old.test/join", `{"browser-control":{"version":"1"}}`))
	})
	mux.HandleFunc("mixed.test/.well-known/poppy.json", func(w http.ResponseWriter, r *http.Request) {
		w.Write(poppyJSON("mixed.test", "https://mixed.test/join", `{"browser-control":[{"version":1},{"version":"1"}]}`))
	})
	mux.HandleFunc("numeric.test/.well-known/poppy.json", func(w http.ResponseWriter, r *http.Request) {
		w.Write(poppyJSON("numeric.test", "https://numeric.test/join", `{"browser-control":[{"version":1}]}`))
	})
	client := redirectServer(t, mux)

	tests := []struct {
		company   string
		wantWarn  string // a warning holding this
		wantErr   string // exact
		wantFetch bool
	}{
		{company: "bücher.test"},
		{company: "xn--bcher-kva.test"},
		{company: "https://BÜCHER.test/path"},
		{company: "xn--zz.test", wantErr: `discovering xn--zz.test: normalizing domain "xn--zz.test": invalid domain: not a valid internationalized name: invalid label "zz"`},
		{company: "bü_cher.test", wantErr: `discovering bü_cher.test: normalizing domain "bü_cher.test": invalid domain: not a valid internationalized name: disallowed rune U+005F`},
		{company: "www.test", wantErr: `discovering www.test: poppy.json: organization.domain "test": a public suffix cannot be a Company: "test"`},
		{company: "test", wantErr: `discovering test: a public suffix cannot be a Company: "test"`},
		{company: "co.uk", wantErr: `discovering co.uk: a public suffix cannot be a Company: "co.uk"`},
		{company: "https://airline.test@evil.test/", wantErr: `discovering https://airline.test@evil.test/: company URL must not hold userinfo (user@ or user:password@)`},
		{company: "old.test", wantWarn: "extensions.browser-control is a single object (draft 0.1 shape)"},
		{company: "mixed.test", wantWarn: "extensions.browser-control entry 1: version must be a string, not a json number, so it is ignored"},
		{company: "numeric.test", wantErr: "discovering numeric.test: poppy.json does not support browser-control v1: extensions.browser-control entry 1: version must be a string, not a json number, so it is ignored"},
	}
	for _, tc := range tests {
		t.Run(tc.company, func(t *testing.T) {
			c, warns, err := Discover(t.Context(), client, tc.company)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v\nwant    %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Discover(%q): %v", tc.company, err)
			}
			if tc.wantWarn == "" && len(warns) > 0 {
				t.Errorf("unexpected warnings %v", warns)
			}
			if tc.wantWarn != "" && (len(warns) != 1 || !strings.Contains(warns[0].Message, tc.wantWarn)) {
				t.Errorf("warnings = %v, want one holding %q", warns, tc.wantWarn)
			}
			if strings.Contains(tc.company, "cher") && (c.Domain != "xn--bcher-kva.test" || !c.IsCompanyURL("https://pay.bücher.test/x") || !c.IsCompanyHost("xn--bcher-kva.test.")) {
				t.Errorf("company %+v does not own bücher.test in both forms", c)
			}
		})
	}
}

// TestDiscoverNilClientHasATimeout: with no client, discovery still ends.
func TestDiscoverNilClientHasATimeout(t *testing.T) {
	if DiscoveryTimeout <= 0 || DiscoveryTimeout > time.Minute {
		t.Fatalf("DiscoveryTimeout = %s", DiscoveryTimeout)
	}
	c := http.Client{Timeout: DiscoveryTimeout}
	var got http.Client
	// fetchDocument copies the zero-client default; check the copy it makes.
	got = defaultClient(nil)
	if got.Timeout != c.Timeout {
		t.Errorf("a nil client gets timeout %s, want %s", got.Timeout, DiscoveryTimeout)
	}
}

func TestNoJoinNames(t *testing.T) {
	for in, want := range map[string]string{"localhost": "localhost", "bücher.test": "xn--bcher-kva.test", "https://dev.localhost:8443/": "dev.localhost"} {
		c, err := NoJoin(in)
		if err != nil || c.Domain != want {
			t.Errorf("NoJoin(%q) = %v, %v; want %s", in, c, err, want)
		}
	}
	for _, bad := range []string{"test", "co.uk", "https://u:p@airline.test/"} {
		if _, err := NoJoin(bad); err == nil {
			t.Errorf("NoJoin(%q) succeeded", bad)
		}
	}
}

// TestDeclaresTo: the header goes over secure schemes only, except to a
// Company on localhost.
func TestDeclaresTo(t *testing.T) {
	airline := &Company{Domain: "airline.test"}
	local, err := NoJoin("localhost")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c    *Company
		url  string
		want bool
	}{
		{airline, "https://airline.test/", true},
		{airline, "wss://live.airline.test/socket", true},
		{airline, "https://AIRLINE.test.:8443/x", true},
		{airline, "http://airline.test/", false},
		{airline, "ws://airline.test/socket", false},
		{airline, "https://partner.test/", false},
		{airline, "ftp://airline.test/", false},
		{local, "http://localhost:8080/", true},
		{local, "ws://localhost:8080/", true},
		{local, "https://dev.localhost/", true},
		{local, "http://127.0.0.1:8080/", false},
	} {
		if got := tc.c.DeclaresTo(tc.url); got != tc.want {
			t.Errorf("%s DeclaresTo(%q) = %v, want %v", tc.c.Domain, tc.url, got, tc.want)
		}
	}
}
