package testsite_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/go-cmp/cmp"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// credential is a browser credential's claims.
type credential struct {
	jwt.Claims
	SessionID string `json:"session_id,omitempty"`
	ReturnTo  string `json:"return_to,omitempty"`
}

var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// validCredential returns claims the Site accepts at testNow.
func validCredential(jti string) credential {
	return credential{
		Claims: jwt.Claims{
			Issuer:   "https://agent.example",
			Subject:  "user-42",
			Audience: jwt.Audience{testsite.JoinEndpoint()},
			IssuedAt: jwt.NewNumericDate(testNow),
			Expiry:   jwt.NewNumericDate(testNow.Add(60 * time.Second)),
			ID:       jti,
		},
		SessionID: "ses_1",
		ReturnTo:  "https://airline.test/bookings/bkg_4Rt9",
	}
}

// sign serializes c as a compact JWS signed with key and header typ.
func sign(t *testing.T, key ed25519.PrivateKey, typ string, c credential) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.EdDSA, Key: key},
		(&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(c).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func newKey(t *testing.T) (ed25519.PublicKey, ed25519.PrivateKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return pub, priv
}

// postJoin posts form to the join endpoint without following redirects.
func postJoin(t *testing.T, s *testsite.Site, form url.Values) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, testsite.JoinEndpoint(), strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Poppy-Extensions", `"browser-control";v="1"`)
	return do(t, noRedirect(s), req)
}

func TestJoinSuccess(t *testing.T) {
	pub, priv := newKey(t)
	s, logs := startSite(t, &testsite.Options{Now: func() time.Time { return testNow }})
	s.TrustKey(pub)
	tok := sign(t, priv, "poppy-browser+jwt", validCredential("jti-ok"))

	resp, _ := postJoin(t, s, url.Values{"assertion": {tok}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("status = %d, want 303", resp.StatusCode)
	}
	if loc := resp.Header.Get("Location"); loc != "https://airline.test/bookings/bkg_4Rt9" {
		t.Errorf("Location = %q, want return_to", loc)
	}
	cookies := resp.Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies = %v, want one", cookies)
	}
	ck := cookies[0]
	if ck.Name != "airline_session" || ck.Value == "" || ck.Path != "/" || !ck.Secure || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode {
		t.Errorf("cookie = %+v, want airline_session; Path=/; Secure; HttpOnly; SameSite=Lax", ck)
	}

	wantJoins := []testsite.Join{{OK: true, JTI: "jti-ok", Subject: "user-42", SessionID: "ses_1", Extensions: `"browser-control";v="1"`}}
	if diff := cmp.Diff(wantJoins, s.Joins()); diff != "" {
		t.Errorf("Joins (-want +got):\n%s", diff)
	}

	// The cookie signs the browser in; without it, or with a made-up one, it is a guest.
	for _, tc := range []struct {
		name   string
		cookie *http.Cookie
		want   string
	}{
		{"session cookie", ck, "Signed in as user-42"},
		{"no cookie", nil, "Guest"},
		{"unknown cookie", &http.Cookie{Name: "airline_session", Value: "forged"}, "Guest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.cookie != nil {
				h.Set("Cookie", tc.cookie.String())
			}
			_, body := get(t, s.Client(), "https://airline.test/bookings/bkg_4Rt9", h)
			if !strings.Contains(body, `<span id="account">`+tc.want+`</span>`) {
				t.Errorf("page does not say %q", tc.want)
			}
		})
	}

	if strings.Contains(logs.String(), tok) || strings.Contains(logs.String(), ck.Value) {
		t.Error("logs contain the credential or the session cookie")
	}
}

func TestJoinRefused(t *testing.T) {
	pub, priv := newKey(t)
	_, untrusted := newKey(t)
	s, logs := startSite(t, &testsite.Options{TrustedKeys: []ed25519.PublicKey{pub}, Now: func() time.Time { return testNow }})

	replayed := sign(t, priv, "poppy-browser+jwt", validCredential("jti-replay"))
	if resp, _ := postJoin(t, s, url.Values{"assertion": {replayed}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("first use of the replayed credential: status = %d, want 303", resp.StatusCode)
	}
	s.Reset()

	with := func(jti string, f func(*credential)) string {
		c := validCredential(jti)
		f(&c)
		return sign(t, priv, "poppy-browser+jwt", c)
	}
	tests := []struct {
		name   string
		form   url.Values
		reason string
	}{
		{"missing assertion", url.Values{}, testsite.ReasonMissingAssertion},
		{"not a JWT", url.Values{"assertion": {"not.a.jwt"}}, testsite.ReasonMalformed},
		{"untrusted key", url.Values{"assertion": {sign(t, untrusted, "poppy-browser+jwt", validCredential("jti-1"))}}, testsite.ReasonBadSignature},
		{"wrong typ", url.Values{"assertion": {sign(t, priv, "JWT", validCredential("jti-2"))}}, testsite.ReasonBadType},
		{"replayed jti", url.Values{"assertion": {replayed}}, testsite.ReasonReplayed},
		{"wrong audience", url.Values{"assertion": {with("jti-3", func(c *credential) {
			c.Audience = jwt.Audience{"https://partner.test/poppy/browser-session"}
		})}}, testsite.ReasonBadAudience},
		{"no exp", url.Values{"assertion": {with("jti-4", func(c *credential) { c.Expiry = nil })}}, testsite.ReasonMissingTimes},
		{"lifetime over 60s", url.Values{"assertion": {with("jti-5", func(c *credential) {
			c.Expiry = jwt.NewNumericDate(testNow.Add(61 * time.Second))
		})}}, testsite.ReasonLifetime},
		{"expired", url.Values{"assertion": {with("jti-6", func(c *credential) {
			c.IssuedAt = jwt.NewNumericDate(testNow.Add(-90 * time.Second))
			c.Expiry = jwt.NewNumericDate(testNow.Add(-31 * time.Second))
		})}}, testsite.ReasonExpired},
		{"issued in the future", url.Values{"assertion": {with("jti-7", func(c *credential) {
			c.IssuedAt = jwt.NewNumericDate(testNow.Add(31 * time.Second))
			c.Expiry = jwt.NewNumericDate(testNow.Add(61 * time.Second))
		})}}, testsite.ReasonNotYetValid},
		{"no jti", url.Values{"assertion": {with("", func(*credential) {})}}, testsite.ReasonMissingJTI},
		{"no session_id", url.Values{"assertion": {with("jti-8", func(c *credential) { c.SessionID = "" })}}, testsite.ReasonMissingSession},
		{"return_to off-site", url.Values{"assertion": {with("jti-9", func(c *credential) {
			c.ReturnTo = "https://partner.test/landing"
		})}}, testsite.ReasonBadReturnTo},
		{"return_to lookalike", url.Values{"assertion": {with("jti-10", func(c *credential) {
			c.ReturnTo = "https://evilairline.test/"
		})}}, testsite.ReasonBadReturnTo},
		{"return_to http", url.Values{"assertion": {with("jti-11", func(c *credential) {
			c.ReturnTo = "http://airline.test/bookings/bkg_4Rt9"
		})}}, testsite.ReasonBadReturnTo},
		{"return_to missing", url.Values{"assertion": {with("jti-12", func(c *credential) { c.ReturnTo = "" })}}, testsite.ReasonBadReturnTo},
		{"no iss", url.Values{"assertion": {with("jti-13", func(c *credential) { c.Issuer = "" })}}, testsite.ReasonMissingIssuer},
		{"no sub", url.Values{"assertion": {with("jti-14", func(c *credential) { c.Subject = "" })}}, testsite.ReasonMissingSubject},
		{"exp == iat", url.Values{"assertion": {with("jti-15", func(c *credential) { c.Expiry = c.IssuedAt })}}, testsite.ReasonLifetime},
		{"exp before iat", url.Values{"assertion": {with("jti-16", func(c *credential) {
			c.Expiry = jwt.NewNumericDate(testNow.Add(-time.Second))
		})}}, testsite.ReasonLifetime},
		{"iat 6s ahead", url.Values{"assertion": {with("jti-17", func(c *credential) {
			c.IssuedAt = jwt.NewNumericDate(testNow.Add(6 * time.Second))
			c.Expiry = jwt.NewNumericDate(testNow.Add(60 * time.Second))
		})}}, testsite.ReasonNotYetValid},
		{"nbf ahead", url.Values{"assertion": {with("jti-18", func(c *credential) {
			c.NotBefore = jwt.NewNumericDate(testNow.Add(30 * time.Second))
		})}}, testsite.ReasonNotYetValid},
		{"expired a moment ago", url.Values{"assertion": {with("jti-19", func(c *credential) {
			c.IssuedAt = jwt.NewNumericDate(testNow.Add(-60 * time.Second))
			c.Expiry = jwt.NewNumericDate(testNow.Add(-6 * time.Second))
		})}}, testsite.ReasonExpired},
		{"typ of another kind", url.Values{"assertion": {sign(t, priv, "application/jwt", validCredential("jti-20"))}}, testsite.ReasonBadType},
		{"typ with another prefix", url.Values{"assertion": {sign(t, priv, "text/poppy-browser+jwt", validCredential("jti-21"))}}, testsite.ReasonBadType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s.Reset()
			resp, body := postJoin(t, s, tc.form)
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status = %d, want 400", resp.StatusCode)
			}
			if sc := resp.Header.Values("Set-Cookie"); len(sc) != 0 {
				t.Errorf("Set-Cookie = %q, want none", sc)
			}
			if !strings.Contains(body, tc.reason) {
				t.Errorf("body = %q, want reason %q", body, tc.reason)
			}
			joins := s.Joins()
			if len(joins) != 1 || joins[0].OK || joins[0].Reason != tc.reason {
				t.Errorf("Joins = %+v, want one refusal with reason %q", joins, tc.reason)
			}
			if a := tc.form.Get("assertion"); a != "" && strings.Contains(logs.String(), a) {
				t.Error("logs contain the credential")
			}
		})
	}
}

func TestJoinSubdomainReturnTo(t *testing.T) {
	pub, priv := newKey(t)
	s, _ := startSite(t, &testsite.Options{TrustedKeys: []ed25519.PublicKey{pub}, Now: func() time.Time { return testNow }})
	c := validCredential("jti-sub")
	c.ReturnTo = "https://www.airline.test/bookings/bkg_4Rt9/check-in"
	resp, _ := postJoin(t, s, url.Values{"assertion": {sign(t, priv, "poppy-browser+jwt", c)}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != c.ReturnTo {
		t.Errorf("status %d Location %q, want 303 to %s", resp.StatusCode, resp.Header.Get("Location"), c.ReturnTo)
	}
}

// TestJoinAcceptsTheLetter: what RFC 7515 and the skew allow is accepted.
func TestJoinAcceptsTheLetter(t *testing.T) {
	pub, priv := newKey(t)
	s, _ := startSite(t, &testsite.Options{TrustedKeys: []ed25519.PublicKey{pub}, Now: func() time.Time { return testNow }})
	tests := []struct {
		name string
		typ  string
		edit func(*credential)
	}{
		{"typ upper case", "POPPY-BROWSER+JWT", nil},
		{"typ with application/", "application/poppy-browser+jwt", nil},
		{"typ mixed case with application/", "Application/Poppy-Browser+JWT", nil},
		{"iat 4s ahead", "poppy-browser+jwt", func(c *credential) {
			c.IssuedAt = jwt.NewNumericDate(testNow.Add(4 * time.Second))
			c.Expiry = jwt.NewNumericDate(testNow.Add(60 * time.Second))
		}},
		{"nbf now", "poppy-browser+jwt", func(c *credential) { c.NotBefore = jwt.NewNumericDate(testNow) }},
		{"return_to with trailing dot and port", "poppy-browser+jwt", func(c *credential) { c.ReturnTo = "https://Airline.Test.:443/bookings" }},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := validCredential("ok-" + strconv.Itoa(i))
			if tc.edit != nil {
				tc.edit(&c)
			}
			resp, body := postJoin(t, s, url.Values{"assertion": {sign(t, priv, tc.typ, c)}})
			if resp.StatusCode != http.StatusSeeOther {
				t.Errorf("status %d (%s), want 303", resp.StatusCode, strings.TrimSpace(body))
			}
		})
	}
}
