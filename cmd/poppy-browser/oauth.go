package main

import (
	"context"
	"flag"
	"os"

	"github.com/poppy-browser/poppy-browser/internal/cli"
	"github.com/poppy-browser/poppy-browser/mcpserver"
	"github.com/poppy-browser/poppy-browser/oauth"
	"github.com/poppy-browser/poppy-browser/supervisor"
)

// authFlags are the flags that make `mcp --http` an OAuth 2.1 resource
// server (docs/fleet.md).
type authFlags struct {
	issuers, scopes cli.StringList
	audience        string
}

func (a *authFlags) register(fs *flag.FlagSet) {
	fs.Var(&a.issuers, "auth-issuer", "over --http: URL of an OAuth authorization server whose access tokens the endpoint takes (repeatable; its metadata gives its keys); then every request needs one, each MCP session belongs to its token's subject, and POPPY_MCP_TOKEN is not accepted")
	fs.StringVar(&a.audience, "auth-audience", "", "with --auth-issuer: this endpoint's public URL (https://...), which its tokens must name in aud (RFC 8707) and its metadata names as the resource")
	fs.Var(&a.scopes, "auth-scope", "with --auth-issuer: a scope every token must carry (repeatable); a token without it gets 403")
}

func (a *authFlags) set() bool { return len(a.issuers) > 0 || a.audience != "" || len(a.scopes) > 0 }

// resourceServer is the resource server the flags describe, nil when none
// is set; a mistake is a usage error.
func (a *authFlags) resourceServer(httpAddr string) (*oauth.ResourceServer, error) {
	if !a.set() {
		return nil, nil
	}
	if httpAddr == "" {
		return nil, cli.UsageErrorf("mcp: --auth-issuer and --auth-audience need --http: over stdio the client is the User's own process")
	}
	if os.Getenv("POPPY_MCP_TOKEN") != "" {
		return nil, cli.UsageErrorf("mcp: POPPY_MCP_TOKEN is set, but with --auth-issuer the endpoint takes OAuth access tokens only: unset it")
	}
	opts := &oauth.Options{Issuers: a.issuers, Audience: a.audience, Scopes: a.scopes}
	if err := oauth.Check(opts); err != nil {
		return nil, cli.UsageErrorf("mcp: %v", err)
	}
	return oauth.New(opts)
}

// openFor opens the runtime of an MCP session for the subject that began
// it (none without OAuth).
func openFor(ctx context.Context, rt *supervisor.Server, id string) (*supervisor.Session, error) {
	if sub, ok := mcpserver.SubjectOf(ctx); ok {
		return rt.NewSessionFor(ctx, id, sub.Sub)
	}
	return rt.NewSession(ctx, id)
}
