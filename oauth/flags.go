package oauth

import (
	"flag"
	"os"

	"github.com/poppy-browser/poppy-browser/internal/cli"
)

// Flags are the command-line flags that make `mcp --http` an OAuth 2.1
// resource server (docs/fleet.md).
type Flags struct {
	issuers, scopes cli.StringList
	audience        string
}

// Register adds --auth-issuer, --auth-audience and --auth-scope to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.Var(&f.issuers, "auth-issuer", "over --http: URL of an OAuth authorization server whose access tokens the endpoint takes (repeatable; its metadata gives its keys); then every request needs one, each MCP session belongs to its token's subject, and POPPY_MCP_TOKEN is not accepted")
	fs.StringVar(&f.audience, "auth-audience", "", "with --auth-issuer: this endpoint's public URL (https://...), which its tokens must name in aud (RFC 8707) and its metadata names as the resource")
	fs.Var(&f.scopes, "auth-scope", "with --auth-issuer: a scope every token must carry (repeatable); a token without it gets 403")
}

func (f *Flags) set() bool { return len(f.issuers) > 0 || f.audience != "" || len(f.scopes) > 0 }

// ResourceServer is the resource server the flags describe, nil when none
// is set; a mistake is a usage error. httpAddr is the --http address.
func (f *Flags) ResourceServer(httpAddr string) (*ResourceServer, error) {
	if !f.set() {
		return nil, nil
	}
	if httpAddr == "" {
		return nil, cli.UsageErrorf("mcp: --auth-issuer and --auth-audience need --http: over stdio the client is the User's own process")
	}
	if os.Getenv("POPPY_MCP_TOKEN") != "" {
		return nil, cli.UsageErrorf("mcp: POPPY_MCP_TOKEN is set, but with --auth-issuer the endpoint takes OAuth access tokens only: unset it")
	}
	opts := &Options{Issuers: f.issuers, Audience: f.audience, Scopes: f.scopes}
	if err := Check(opts); err != nil {
		return nil, cli.UsageErrorf("mcp: %v", err)
	}
	return New(opts)
}
