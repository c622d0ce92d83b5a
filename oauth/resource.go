package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/poppy-browser/poppy-browser/internal/jwtverify"
	"github.com/poppy-browser/poppy-browser/internal/loopback"
)

// Options configures a [ResourceServer]. Nothing here is a secret.
type Options struct {
	// Issuers are the authorization servers whose tokens are accepted
	// (--auth-issuer), each an issuer identifier: an https URL (http only
	// on a loopback host), as its metadata and its tokens' iss name it.
	// At least one.
	Issuers []string
	// Audience is the resource's URI (--auth-audience): every token's aud
	// must include it (RFC 8707; a trailing slash aside), and it is the
	// resource of the Protected Resource Metadata. An https URL (http only
	// on a loopback host). Required.
	Audience string
	// Scopes must all be in every token's scope. Nil means none.
	Scopes []string
	// Skew is the leeway on exp, nbf and iat. Zero means DefaultSkew; at
	// most MaxSkew.
	Skew time.Duration
	// Refresh is the least time between two loads of an issuer's metadata
	// or keys for a key id it lacks. Zero means jwtverify.DefaultRefresh.
	Refresh time.Duration
	// HTTPClient fetches the issuers' metadata and keys. Nil means a
	// client with a 10 s timeout that follows no redirect.
	HTTPClient *http.Client
	// Now is the clock. Nil means time.Now.
	Now func() time.Time
}

// Defaults and bounds of [Options].
const (
	DefaultSkew = 30 * time.Second
	MaxSkew     = 5 * time.Minute
)

// MetadataPath is where the Protected Resource Metadata is served (RFC
// 9728, section 3), and below it for a resource URI with a path.
const MetadataPath = "/.well-known/oauth-protected-resource"

// ResourceServer verifies the access tokens of the MCP endpoint. Make it
// with [New]; it is safe for concurrent use.
type ResourceServer struct {
	audience string
	scopes   []string
	skew     time.Duration
	refresh  time.Duration
	client   *http.Client
	now      func() time.Time
	issuers  map[string]*issuer // by issuer identifier
	order    []string
}

// issuer is one trusted authorization server: its keys, found through its
// metadata when first needed.
type issuer struct {
	id string

	mu     sync.Mutex // held by the one discovery running
	keys   *jwtverify.Keys
	tried  time.Time // the last discovery that failed
	failed error
}

// Check reports, without I/O, what is missing or wrong in opts, in one
// line naming the flag.
func Check(opts *Options) error {
	if len(opts.Issuers) == 0 {
		return errors.New("--auth-audience needs --auth-issuer URL: the authorization server whose tokens are accepted")
	}
	for _, is := range opts.Issuers {
		if err := checkURL(is); err != nil {
			return fmt.Errorf("--auth-issuer %q: %v", is, err)
		}
	}
	if opts.Audience == "" {
		return errors.New("--auth-issuer needs --auth-audience URI: this MCP endpoint's public URL, which its tokens name in aud")
	}
	if err := checkURL(opts.Audience); err != nil {
		return fmt.Errorf("--auth-audience %q: %v", opts.Audience, err)
	}
	if u, _ := url.Parse(opts.Audience); u.Fragment != "" || u.RawQuery != "" {
		return fmt.Errorf("--auth-audience %q: want a URL without query or fragment (RFC 8707)", opts.Audience)
	}
	for _, s := range opts.Scopes {
		if s == "" || strings.ContainsAny(s, " \t\r\n\"\\") {
			return fmt.Errorf("--auth-scope %q: want one scope token", s)
		}
	}
	if opts.Skew < 0 || opts.Skew > MaxSkew {
		return fmt.Errorf("the tokens' clock skew %s: want between 0 and %s", opts.Skew, MaxSkew)
	}
	return nil
}

// checkURL accepts an https URL, or http on a loopback host, with a host
// and no user info.
func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil || !(u.Scheme == "https" || u.Scheme == "http" && loopback.Host(u.Hostname())) {
		return errors.New("want an https URL (http only on a loopback host)")
	}
	return nil
}

// New checks opts and prepares the resource server; it fetches nothing
// until a token arrives.
func New(opts *Options) (*ResourceServer, error) {
	if opts == nil {
		return nil, errors.New("the MCP endpoint's authorization: no options")
	}
	if err := Check(opts); err != nil {
		return nil, err
	}
	rs := &ResourceServer{audience: opts.Audience, scopes: slices.Clone(opts.Scopes), skew: opts.Skew,
		refresh: opts.Refresh, client: opts.HTTPClient, now: opts.Now, issuers: map[string]*issuer{}}
	if rs.skew == 0 {
		rs.skew = DefaultSkew
	}
	if rs.refresh <= 0 {
		rs.refresh = jwtverify.DefaultRefresh
	}
	if rs.now == nil {
		rs.now = time.Now
	}
	if rs.client == nil {
		rs.client = &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	for _, id := range opts.Issuers {
		if rs.issuers[id] == nil {
			rs.issuers[id] = &issuer{id: id}
			rs.order = append(rs.order, id)
		}
	}
	return rs, nil
}

// Audience is the resource's URI, as --auth-audience gave it.
func (rs *ResourceServer) Audience() string { return rs.audience }

// Scopes are the scopes every token must carry.
func (rs *ResourceServer) Scopes() []string { return slices.Clone(rs.scopes) }

// MetadataURL is the absolute URL of the Protected Resource Metadata for
// the audience: its origin, MetadataPath, and its path (RFC 9728, section
// 3.1). WWW-Authenticate names it.
func (rs *ResourceServer) MetadataURL() string {
	u, _ := url.Parse(rs.audience)
	return u.Scheme + "://" + u.Host + MetadataPath + strings.TrimSuffix(u.EscapedPath(), "/")
}

// Metadata is the Protected Resource Metadata (RFC 9728): the resource,
// the issuers, the scopes, bearer tokens in the header only.
func (rs *ResourceServer) Metadata() *oauthex.ProtectedResourceMetadata {
	return &oauthex.ProtectedResourceMetadata{
		Resource:               rs.audience,
		AuthorizationServers:   slices.Clone(rs.order),
		ScopesSupported:        rs.Scopes(),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "poppy-browser",
	}
}

// Middleware is the go-sdk's bearer check with rs: a request without a
// valid token gets 401 (403 when it lacks a scope) and WWW-Authenticate
// naming the metadata; a valid one goes on with its TokenInfo in its
// context.
func (rs *ResourceServer) Middleware() func(http.Handler) http.Handler {
	return auth.RequireBearerToken(rs.Verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: rs.MetadataURL(), Scopes: rs.scopes, ClockSkew: rs.skew})
}

// tokenClaims are the claims a token is checked on.
type tokenClaims struct {
	jwt.Claims
	Scope string `json:"scope"`
	// scp is how some issuers (Okta, Azure) list scopes.
	Scp any `json:"scp"`
}

// Verify is an [auth.TokenVerifier]: it checks the token's signature by
// its issuer's keys, its issuer (one of Options.Issuers), audience,
// expiry (required), not-before, issued-at and subject (required), and
// returns its scopes, expiry and subject (UserID is [Subject.Key]). An
// error that wraps [auth.ErrInvalidToken] is the token's fault (401); any
// other is the issuer's (its keys could not be had).
func (rs *ResourceServer) Verify(ctx context.Context, raw string, _ *http.Request) (*auth.TokenInfo, error) {
	if len(raw) > jwtverify.MaxTokenLen {
		return nil, invalid("the token is too long")
	}
	tok, err := jwt.ParseSigned(raw, jwtverify.Algorithms)
	if err != nil {
		return nil, invalid("the token is not a JWT signed with an allowed algorithm (RS, PS, ES or EdDSA)")
	}
	// The issuer picks the keys; the signature checks it next.
	var unverified jwt.Claims
	if err := tok.UnsafeClaimsWithoutVerification(&unverified); err != nil {
		return nil, invalid("the token's claims are not JSON")
	}
	is := rs.issuers[unverified.Issuer]
	if is == nil {
		return nil, invalid("the token's issuer (iss) is not an --auth-issuer")
	}
	keys, err := is.keySet(ctx, rs)
	if err != nil {
		return nil, err
	}
	var c tokenClaims
	if err := keys.Verify(ctx, raw, &c); err != nil {
		return nil, invalid(err.Error())
	}
	if err := rs.checkClaims(c.Claims); err != nil {
		return nil, err
	}
	return &auth.TokenInfo{
		Scopes:     scopesOf(c),
		Expiration: c.Expiry.Time(),
		UserID:     Subject{Issuer: c.Issuer, Sub: c.Subject}.Key(),
		Extra:      map[string]any{extraIssuer: c.Issuer, extraSubject: c.Subject},
	}, nil
}

// checkClaims checks verified claims: issuer, audience, times, subject.
func (rs *ResourceServer) checkClaims(c jwt.Claims) error {
	if c.Expiry == nil {
		return invalid("the token has no expiry (exp)")
	}
	if c.Subject == "" {
		return invalid("the token names no subject (sub)")
	}
	if rs.issuers[c.Issuer] == nil {
		return invalid("the token's issuer (iss) is not an --auth-issuer")
	}
	if !oauthex.MatchesResource(c.Audience, rs.audience) {
		return invalid("the token's audience (aud) is not --auth-audience: it was issued for another resource")
	}
	err := c.ValidateWithLeeway(jwt.Expected{Time: rs.now()}, rs.skew)
	switch {
	case errors.Is(err, jwt.ErrExpired):
		return invalid("the token has expired (exp)")
	case errors.Is(err, jwt.ErrNotValidYet):
		return invalid("the token is not valid yet (nbf)")
	case errors.Is(err, jwt.ErrIssuedInTheFuture):
		return invalid("the token is issued in the future (iat)")
	case err != nil:
		return invalid("the token's claims are not valid")
	}
	return nil
}

// scopesOf reads scope (space-separated, RFC 9068) or scp (a list or a
// string).
func scopesOf(c tokenClaims) []string {
	out := strings.Fields(c.Scope)
	switch v := c.Scp.(type) {
	case string:
		out = append(out, strings.Fields(v)...)
	case []any:
		for _, s := range v {
			if s, ok := s.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// invalidToken is a token's fault, in one line without the token.
type invalidToken string

func (e invalidToken) Error() string        { return string(e) }
func (e invalidToken) Is(target error) bool { return target == auth.ErrInvalidToken }

func invalid(msg string) error { return invalidToken(msg) }
