package jwtverify

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/poppy-browser/poppy-browser/internal/loopback"
)

// Options configures [New].
type Options struct {
	// Source is where the keys are: an https URL (or http on a loopback
	// host) or a file holding the JSON Web Key Set. Required.
	Source string
	// Name is what errors call the key set (a flag such as
	// --live-identity-jwks). Empty means "the JWKS".
	Name string
	// Token is what errors call a token ("the identity"). Empty means
	// "the token".
	Token string
	// Refresh is the least time between two loads for an unknown key id.
	// Zero means DefaultRefresh.
	Refresh time.Duration
	// HTTPClient fetches a URL. Nil means a client with a 10 s timeout
	// that follows no redirect.
	HTTPClient *http.Client
	// Now is the clock. Nil means time.Now.
	Now func() time.Time
}

// DefaultRefresh is [Options.Refresh]'s default.
const DefaultRefresh = 30 * time.Second

// Algorithms are the signatures a token may carry: asymmetric only. No
// "none" and no HMAC, so a public key can never serve as an HMAC secret.
var Algorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA,
}

// Bounds of a JSON Web Key Set: its size, its keys, how long a fetch may
// take, and how long loaded keys are used before they are loaded again.
const (
	maxJWKSBytes = 1 << 20
	maxJWKSKeys  = 64
	jwksTimeout  = 10 * time.Second
	jwksMaxAge   = time.Hour
	MaxTokenLen  = 16 << 10 // the longest compact JWT read
)

// Keys is an issuer's public keys, from a URL or a file, loaded when
// first needed, again for a key id it lacks (at most every Refresh) and
// after an hour. A failed load keeps the keys it had. Make it with [New];
// it is safe for concurrent use.
type Keys struct {
	name    string   // the key set in errors: a flag, or "the issuer's JWKS"
	token   string   // a token in errors: "the identity", "the token"
	url     *url.URL // or
	file    string
	client  *http.Client
	refresh time.Duration
	now     func() time.Time

	loadMu sync.Mutex // held by the one load running
	mu     sync.Mutex
	keys   []jose.JSONWebKey
	loaded time.Time // the last load tried; zero before the first
}

// SourceURL is src as a URL to fetch, nil for a file; an http URL must
// name a loopback host, and no other scheme is allowed. name is what the
// error calls src (a flag).
func SourceURL(src, name string) (*url.URL, error) {
	if !strings.Contains(src, "://") {
		return nil, nil
	}
	u, err := url.Parse(src)
	if err == nil && u.Host != "" && u.User == nil && (u.Scheme == "https" || u.Scheme == "http" && loopback.Host(u.Hostname())) {
		return u, nil
	}
	return nil, fmt.Errorf("%s %q: want an https URL (http only on a loopback host) or a file", name, src)
}

// New checks opts and prepares the keys. A file is read now, so a missing
// or bad file is an error at once; a URL is fetched when first needed.
func New(opts *Options) (*Keys, error) {
	name, token := opts.Name, opts.Token
	if name == "" {
		name = "the JWKS"
	}
	if token == "" {
		token = "the token"
	}
	client, refresh, now := opts.HTTPClient, opts.Refresh, opts.Now
	if now == nil {
		now = time.Now
	}
	u, err := SourceURL(opts.Source, name)
	if err != nil {
		return nil, err
	}
	if client == nil {
		client = &http.Client{Timeout: jwksTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if refresh <= 0 {
		refresh = DefaultRefresh
	}
	ks := &Keys{name: name, token: token, url: u, file: opts.Source, client: client, refresh: refresh, now: now}
	if u == nil {
		keys, err := ks.fetch(context.Background())
		if err != nil {
			return nil, err
		}
		ks.keys, ks.loaded = keys, now()
	}
	return ks, nil
}

// Verify parses raw (a compact JWS with one signature by an allowed
// algorithm, at most MaxTokenLen long), checks its signature with the key
// its kid names (any key when it names none) that fits its algorithm, and
// decodes its claims into each of claims. It checks no claim: the caller
// does. The error says in one line what failed; it never holds the token.
func (ks *Keys) Verify(ctx context.Context, raw string, claims ...any) error {
	if len(raw) > MaxTokenLen {
		return fmt.Errorf("%s is too long", ks.token)
	}
	tok, err := jwt.ParseSigned(raw, Algorithms)
	if err != nil {
		return fmt.Errorf("%s is not a JWT signed with an allowed algorithm (RS, PS, ES or EdDSA)", ks.token)
	}
	if len(tok.Headers) != 1 {
		return fmt.Errorf("%s must carry one signature", ks.token)
	}
	h := tok.Headers[0]
	return ks.verify(ctx, tok, h.KeyID, jose.SignatureAlgorithm(h.Algorithm), claims)
}

func (ks *Keys) verify(ctx context.Context, tok *jwt.JSONWebToken, kid string, alg jose.SignatureAlgorithm, claims []any) error {
	keys, err := ks.lookup(ctx, kid)
	if err != nil {
		return err
	}
	fits := 0
	for _, k := range keys {
		if !keyFits(k, alg) {
			continue
		}
		fits++
		if tok.Claims(k.Key, claims...) == nil {
			return nil
		}
	}
	if fits == 0 {
		return fmt.Errorf("%s is signed by no key of %s for its algorithm (kid, alg)", ks.token, ks.name)
	}
	return fmt.Errorf("%s's signature does not verify", ks.token)
}

// lookup returns the keys named kid (every key for ""), loading the set
// when it has none, is old, or lacks kid and may be loaded again. One load
// runs at a time; a request whose key is known never waits for it.
func (ks *Keys) lookup(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	found, load := ks.cached(kid)
	if load {
		ks.loadMu.Lock()
		// Another request may have loaded the set while this one waited.
		if found, load = ks.cached(kid); load {
			// The client going away does not cut the load short for the
			// requests waiting on it.
			keys, err := ks.fetch(context.WithoutCancel(ctx))
			ks.mu.Lock()
			ks.loaded = ks.now()
			if err == nil {
				ks.keys = keys
			}
			keys = ks.keys
			ks.mu.Unlock()
			if err != nil && len(keys) == 0 {
				ks.loadMu.Unlock()
				return nil, err
			}
			found = match(keys, kid)
		}
		ks.loadMu.Unlock()
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("%s is signed by a key %s does not list (kid)", ks.token, ks.name)
	}
	return found, nil
}

// cached returns the loaded keys named kid, and whether the set is to be
// loaded first: it has no key, is older than jwksMaxAge, or lacks kid and
// was loaded at least refresh ago.
func (ks *Keys) cached(kid string) (found []jose.JSONWebKey, load bool) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	found = match(ks.keys, kid)
	age := ks.now().Sub(ks.loaded)
	return found, len(ks.keys) == 0 || age >= jwksMaxAge || (len(found) == 0 && age >= ks.refresh)
}

func match(keys []jose.JSONWebKey, kid string) []jose.JSONWebKey {
	if kid == "" {
		return keys
	}
	var out []jose.JSONWebKey
	for _, k := range keys {
		if k.KeyID == kid {
			out = append(out, k)
		}
	}
	return out
}

// fetch reads the key set from its URL or file: its public signing keys
// (a private key listed is used as its public half; symmetric keys are
// left out, so none can verify anything).
func (ks *Keys) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	var body []byte
	if ks.url != nil {
		ctx, cancel := context.WithTimeout(ctx, jwksTimeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, ks.url.String(), nil)
		if err != nil {
			return nil, fmt.Errorf("fetching %s: bad URL", ks.name)
		}
		resp, err := ks.client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("fetching %s from %s: it did not answer", ks.name, ks.url.Host)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("fetching %s from %s: %s", ks.name, ks.url.Host, resp.Status)
		}
		if body, err = io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1)); err != nil {
			return nil, fmt.Errorf("fetching %s from %s: %w", ks.name, ks.url.Host, err)
		}
	} else {
		f, err := os.Open(ks.file)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", ks.name, err)
		}
		defer f.Close()
		if body, err = io.ReadAll(io.LimitReader(f, maxJWKSBytes+1)); err != nil {
			return nil, fmt.Errorf("reading %s: %w", ks.name, err)
		}
	}
	return parseJWKS(body, ks.name)
}

// parseJWKS reads a JSON Web Key Set, keeping its public signing keys.
func parseJWKS(body []byte, name string) ([]jose.JSONWebKey, error) {
	if len(body) > maxJWKSBytes {
		return nil, fmt.Errorf("%s: the key set is over 1 MiB", name)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("%s: not a JSON Web Key Set", name)
	}
	var keys []jose.JSONWebKey
	for _, k := range set.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		if !k.IsPublic() {
			k = k.Public() // a private key's public half; invalid for a symmetric key
		}
		if !k.Valid() || !publicKey(k.Key) {
			continue
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: the key set holds no public signing key", name)
	}
	if len(keys) > maxJWKSKeys {
		return nil, fmt.Errorf("%s: the key set holds over %d keys", name, maxJWKSKeys)
	}
	return keys, nil
}

func publicKey(k any) bool {
	switch k.(type) {
	case *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey:
		return true
	}
	return false
}

// keyFits reports whether k may verify a signature of alg: the key's
// type is the algorithm's, and the key, when it names an algorithm,
// names that one.
func keyFits(k jose.JSONWebKey, alg jose.SignatureAlgorithm) bool {
	if k.Algorithm != "" && k.Algorithm != string(alg) {
		return false
	}
	switch key := k.Key.(type) {
	case *rsa.PublicKey:
		switch alg {
		case jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512:
			return key.N.BitLen() >= 2048
		}
	case *ecdsa.PublicKey:
		switch alg {
		case jose.ES256:
			return key.Curve.Params().Name == "P-256"
		case jose.ES384:
			return key.Curve.Params().Name == "P-384"
		case jose.ES512:
			return key.Curve.Params().Name == "P-521"
		}
	case ed25519.PublicKey:
		return alg == jose.EdDSA
	}
	return false
}
