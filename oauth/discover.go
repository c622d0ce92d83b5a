package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/poppy-browser/poppy-browser/internal/jwtverify"
)

// keySet is the issuer's keys, found through its metadata at the first
// call; a failed discovery is tried again at most every refresh.
func (is *issuer) keySet(ctx context.Context, rs *ResourceServer) (*jwtverify.Keys, error) {
	is.mu.Lock()
	defer is.mu.Unlock()
	if is.keys != nil {
		return is.keys, nil
	}
	if is.failed != nil && rs.now().Sub(is.tried) < rs.refresh {
		return nil, is.failed
	}
	// The client going away does not cut discovery short for the others.
	jwks, err := discoverJWKS(context.WithoutCancel(ctx), rs.client, is.id)
	if err == nil {
		is.keys, err = jwtverify.New(&jwtverify.Options{Source: jwks, Name: "the JWKS of " + is.id, Token: "the token",
			Refresh: rs.refresh, HTTPClient: rs.client, Now: rs.now})
	}
	if err != nil {
		is.tried, is.failed = rs.now(), fmt.Errorf("the keys of --auth-issuer %s: %w", is.id, err)
		return nil, is.failed
	}
	return is.keys, nil
}

// metadataURLs are where an issuer's metadata may be, in the order MCP's
// authorization tries them: RFC 8414 (path inserted), then OpenID Connect
// discovery (path inserted, then appended).
func metadataURLs(issuerID string) []string {
	u, err := url.Parse(issuerID)
	if err != nil {
		return nil
	}
	origin, path := u.Scheme+"://"+u.Host, strings.TrimSuffix(u.EscapedPath(), "/")
	if path == "" {
		return []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}
	}
	return []string{origin + "/.well-known/oauth-authorization-server" + path,
		origin + "/.well-known/openid-configuration" + path, origin + path + "/.well-known/openid-configuration"}
}

// discoverJWKS reads the issuer's metadata and returns its jwks_uri,
// checking that the metadata names the same issuer.
func discoverJWKS(ctx context.Context, client *http.Client, issuerID string) (string, error) {
	var tried []string
	for _, mu := range metadataURLs(issuerID) {
		meta, status, err := getMetadata(ctx, client, mu)
		if err != nil {
			return "", err
		}
		if meta == nil {
			tried = append(tried, status)
			continue
		}
		if strings.TrimSuffix(meta.Issuer, "/") != strings.TrimSuffix(issuerID, "/") {
			return "", fmt.Errorf("its metadata names the issuer %q", meta.Issuer)
		}
		if meta.JWKSURI == "" {
			return "", errors.New("its metadata has no jwks_uri")
		}
		if err := checkURL(meta.JWKSURI); err != nil {
			return "", fmt.Errorf("its jwks_uri: %v", err)
		}
		return meta.JWKSURI, nil
	}
	return "", fmt.Errorf("no metadata at /.well-known/oauth-authorization-server or openid-configuration (%s)", strings.Join(tried, ", "))
}

// getMetadata fetches one metadata URL: nil and the status for a 4xx.
func getMetadata(ctx context.Context, client *http.Client, u string) (*oauthex.AuthServerMeta, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("its metadata: %s did not answer", req.URL.Host)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 && resp.StatusCode < 500 {
		return nil, resp.Status, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("its metadata at %s: %s", u, resp.Status)
	}
	var meta oauthex.AuthServerMeta
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&meta); err != nil {
		return nil, "", fmt.Errorf("its metadata at %s: not JSON", u)
	}
	return &meta, "", nil
}
