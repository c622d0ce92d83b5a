package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestLiveIdentityOverHTTP runs `mcp --http` with the operator's signed
// identity (--live-identity-* and --user, the keys in a JWKS file): a
// session's live view, on the MCP listener the client reaches too,
// answers its page only with a JWT of that User signed by a key of the
// file; without one, with another User's or with one signed by a key
// the file does not list, 403 and one line saying which check failed.
func TestLiveIdentityOverHTTP(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	set, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "k1", Use: "sig"}}})
	jwks := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(jwks, set, 0o600); err != nil {
		t.Fatal(err)
	}
	sign := func(k *ecdsa.PrivateKey, sub string) string {
		t.Helper()
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: k, KeyID: "k1"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		tok, err := jwt.Signed(s).Claims(jwt.Claims{Issuer: "https://idp.example", Audience: jwt.Audience{"poppy"}, Subject: sub,
			IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(time.Minute))}).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	_, args := onDemoSite(t, "mcp", "--company", testsite.CompanyDomain, "--no-join", "--http", "127.0.0.1:0", "--live-url-file", "",
		"--live-identity-header", "X-Poppy-Identity", "--live-identity-jwks", jwks,
		"--live-identity-issuer", "https://idp.example", "--live-identity-audience", "poppy", "--user", "alice@example.com")
	rt := startHTTPRuntime(t, ctx, args)
	defer func() {
		if err := rt.stop(); err != nil {
			t.Errorf("mcp --http: %v", err)
		}
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "model", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: rt.endpoint,
		HTTPClient: &http.Client{Transport: bearer{rt.token, http.DefaultTransport}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_control_status"}); err != nil {
		t.Fatal(err)
	}
	var live *url.URL
	waitUntil(t, ctx, "the session's live view is announced", func() bool {
		m := regexp.MustCompile(`live view for the User of MCP session \S+: (\S+)`).FindStringSubmatch(rt.stderr.String())
		if m != nil {
			live, err = url.Parse(m[1])
		}
		return m != nil && err == nil
	})
	stranger, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, identity string
		code           int
		why            string
	}{
		{"alice's identity", sign(key, "alice@example.com"), http.StatusOK, ""},
		{"no identity", "", http.StatusForbidden, "no X-Poppy-Identity header"},
		{"bob's identity", sign(key, "bob@example.com"), http.StatusForbidden, "another user"},
		{"a key the file does not list", sign(stranger, "alice@example.com"), http.StatusForbidden, "signature does not verify"},
	} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, live.String(), nil)
		if tc.identity != "" {
			req.Header.Set("X-Poppy-Identity", tc.identity)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code || (tc.why != "" && (!strings.Contains(string(body), tc.why) || strings.Count(string(body), "\n") != 1)) {
			t.Errorf("%s: %d %.200q, want %d %s", tc.name, resp.StatusCode, body, tc.code, tc.why)
		}
	}
}
