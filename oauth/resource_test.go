package oauth_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/poppy-browser/poppy-browser/oauth"
	"github.com/poppy-browser/poppy-browser/oauth/oauthtest"
)

const audience = "https://poppy.example/mcp"

func newRS(t *testing.T, is *oauthtest.Issuer, scopes ...string) *oauth.ResourceServer {
	t.Helper()
	rs, err := oauth.New(&oauth.Options{Issuers: []string{is.URL}, Audience: audience, Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestVerifyRefusesWhatAnAttackerSends: every token below is refused as
// invalid (a 401), saying which check failed; the good one gives its
// subject, scopes and expiry.
func TestVerifyRefusesWhatAnAttackerSends(t *testing.T) {
	is := oauthtest.New(t)
	other := oauthtest.New(t) // a real issuer, but not ours
	is.AddKey("rogue", false) // the issuer's kind of key, unlisted
	rs := newRS(t, is)
	good := is.Mint(oauthtest.Token{Sub: "alice", Audience: audience, Scopes: []string{"mcp"}})
	cases := []struct {
		name, token, want string
	}{
		{"expired", is.Mint(oauthtest.Token{Sub: "alice", Audience: audience, Expiry: time.Now().Add(-time.Hour)}), "expired"},
		{"another audience", is.Mint(oauthtest.Token{Sub: "alice", Audience: "https://other.example/mcp"}), "audience"},
		{"audience of another path", is.Mint(oauthtest.Token{Sub: "alice", Audience: "https://poppy.example/"}), "audience"},
		{"unknown key", is.Mint(oauthtest.Token{Sub: "alice", Audience: audience, KeyID: "rogue"}), "does not list (kid)"},
		{"alg none", is.Unsigned(oauthtest.Token{Sub: "alice", Audience: audience}), "allowed algorithm"},
		{"swapped sub", oauthtest.SwapSub(t, good, "bob"), "signature does not verify"},
		{"another issuer", other.Mint(oauthtest.Token{Sub: "alice", Audience: audience}), "issuer (iss)"},
		{"another issuer claiming ours", other.Mint(oauthtest.Token{Sub: "alice", Audience: audience, Issuer: is.URL}), "signature"},
		{"no expiry", is.Mint(oauthtest.Token{Sub: "alice", Audience: audience, NoExpiry: true}), "no expiry"},
		{"no subject", is.Mint(oauthtest.Token{Audience: audience}), "no subject"},
		{"not a JWT", "opaque-token", "allowed algorithm"},
		{"too long", strings.Repeat("a", 20000), "too long"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ti, err := rs.Verify(t.Context(), tc.token, nil)
			if err == nil {
				t.Fatalf("accepted: %+v", ti)
			}
			if !errors.Is(err, auth.ErrInvalidToken) {
				t.Errorf("error %q is not an invalid token (it would not be a 401)", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), tc.token[:min(len(tc.token), 40)]) {
				t.Errorf("the error holds the token")
			}
		})
	}
	ti, err := rs.Verify(t.Context(), good, nil)
	if err != nil {
		t.Fatal(err)
	}
	sub, ok := oauth.SubjectOf(ti)
	if !ok || sub != (oauth.Subject{Issuer: is.URL, Sub: "alice"}) || ti.UserID != sub.Key() {
		t.Errorf("subject %+v %v, UserID %q", sub, ok, ti.UserID)
	}
	if len(ti.Scopes) != 1 || ti.Scopes[0] != "mcp" || time.Until(ti.Expiration) < 5*time.Minute {
		t.Errorf("scopes %v, expiry %s", ti.Scopes, ti.Expiration)
	}
}

// TestVerifyFollowsKeyRotation: a token signed by a key the issuer lists
// after the first fetch verifies (the set is fetched again), and a key
// it never lists still does not.
func TestVerifyFollowsKeyRotation(t *testing.T) {
	is := oauthtest.New(t)
	now := time.Now()
	clock := func() time.Time { return now }
	rs, err := oauth.New(&oauth.Options{Issuers: []string{is.URL}, Audience: audience, Now: clock, Refresh: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rs.Verify(t.Context(), is.Mint(oauthtest.Token{Sub: "a", Audience: audience}), nil); err != nil {
		t.Fatal(err)
	}
	is.AddKey("k2", true)
	now = now.Add(2 * time.Second)
	if _, err := rs.Verify(t.Context(), is.Mint(oauthtest.Token{Sub: "a", Audience: audience, KeyID: "k2"}), nil); err != nil {
		t.Fatalf("after rotation: %v", err)
	}
	if n := is.JWKSFetches(); n != 2 {
		t.Errorf("JWKS fetched %d times, want 2", n)
	}
}

// TestVerifyIssuerDown: an issuer that does not answer is not the
// token's fault (no 401 telling the client to sign in again), and says so.
func TestVerifyIssuerDown(t *testing.T) {
	rs, err := oauth.New(&oauth.Options{Issuers: []string{"http://127.0.0.1:1"}, Audience: audience})
	if err != nil {
		t.Fatal(err)
	}
	is := oauthtest.New(t)
	tok := is.Mint(oauthtest.Token{Sub: "a", Audience: audience, Issuer: "http://127.0.0.1:1"})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err = rs.Verify(ctx, tok, nil)
	if err == nil || errors.Is(err, auth.ErrInvalidToken) || !strings.Contains(err.Error(), "--auth-issuer http://127.0.0.1:1") {
		t.Errorf("err = %v", err)
	}
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name string
		o    oauth.Options
		want string
	}{
		{"no issuer", oauth.Options{Audience: audience}, "needs --auth-issuer"},
		{"http issuer", oauth.Options{Issuers: []string{"http://idp.example"}, Audience: audience}, "--auth-issuer \"http://idp.example\": want an https URL"},
		{"no audience", oauth.Options{Issuers: []string{"https://idp.example"}}, "needs --auth-audience"},
		{"audience not a URL", oauth.Options{Issuers: []string{"https://idp.example"}, Audience: "poppy"}, "--auth-audience \"poppy\""},
		{"audience with fragment", oauth.Options{Issuers: []string{"https://idp.example"}, Audience: audience + "#x"}, "without query or fragment"},
		{"bad scope", oauth.Options{Issuers: []string{"https://idp.example"}, Audience: audience, Scopes: []string{"a b"}}, "--auth-scope"},
		{"ok", oauth.Options{Issuers: []string{"https://idp.example", "http://localhost:9"}, Audience: audience}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := oauth.Check(&tc.o)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Check = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestMetadataURL(t *testing.T) {
	for aud, want := range map[string]string{
		"https://poppy.example/mcp":  "https://poppy.example/.well-known/oauth-protected-resource/mcp",
		"https://poppy.example/":     "https://poppy.example/.well-known/oauth-protected-resource",
		"https://poppy.example":      "https://poppy.example/.well-known/oauth-protected-resource",
		"http://127.0.0.1:8080/mcp/": "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp",
	} {
		rs, err := oauth.New(&oauth.Options{Issuers: []string{"https://idp.example"}, Audience: aud})
		if err != nil {
			t.Fatal(err)
		}
		if got := rs.MetadataURL(); got != want {
			t.Errorf("%s: %s, want %s", aud, got, want)
		}
	}
}
