package oauth_test

import (
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/oauth"
	"github.com/poppy-browser/poppy-browser/oauth/oauthtest"
)

// FuzzVerify: whatever arrives as a bearer token, Verify neither panics
// nor accepts it unless it is one the issuer signed, and its error never
// repeats the token.
func FuzzVerify(f *testing.F) {
	is := oauthtest.New(f)
	rs, err := oauth.New(&oauth.Options{Issuers: []string{is.URL}, Audience: audience})
	if err != nil {
		f.Fatal(err)
	}
	good := is.Mint(oauthtest.Token{Sub: "alice", Audience: audience})
	f.Add(good)
	f.Add(is.Unsigned(oauthtest.Token{Sub: "alice", Audience: audience}))
	f.Add(oauthtest.SwapSub(f, good, "bob"))
	f.Add("a.b.c")
	f.Add("")
	f.Fuzz(func(t *testing.T, raw string) {
		ti, err := rs.Verify(t.Context(), raw, nil)
		if err == nil && raw != good {
			t.Fatalf("accepted a token the issuer did not sign: %q (%+v)", raw, ti)
		}
		if err != nil && len(raw) >= 16 && strings.Contains(err.Error(), raw) {
			t.Fatalf("the error repeats the token: %v", err)
		}
	})
}
