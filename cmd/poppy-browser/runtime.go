package main

import (
	"flag"
	"os"
	"path/filepath"
	"time"

	"github.com/poppy-browser/poppy-browser/internal/cli"
	"github.com/poppy-browser/poppy-browser/internal/desktop"
	"github.com/poppy-browser/poppy-browser/presence"
	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/ui"
)

// config is a runtime's options as the flags of a browser-owning
// subcommand (README, "Commands") fill them.
type config struct {
	supervisor.Options
	browserArgs      cli.StringList
	passkeysFile     string
	assertionCmd     string
	assertionTimeout time.Duration
	// identity is the --live-identity-* flags, and --user its subject.
	identity ui.IdentityOptions
}

func (c *config) register(fs *flag.FlagSet) {
	fs.StringVar(&c.Browser.Chromium, "chromium", "", "Chromium binary (default: find chromium or chrome on PATH)")
	fs.StringVar(&c.Browser.CDPURL, "cdp-url", "", "attach to this browser's DevTools URL instead of launching one")
	fs.DurationVar(&c.Browser.AttachTimeout, "attach-timeout", supervisor.DefaultAttachTimeout, "how long one attach to --cdp-url may take, a wait in the pool's queue (all its browsers busy) included; past it the attach fails saying the pool queued it and did not answer in time")
	fs.BoolVar(&c.Browser.Headful, "headful", false, "show the browser window")
	fs.Var(&c.browserArgs, "browser-arg", "extra Chromium flag (repeatable), e.g. --host-resolver-rules=...")
	fs.StringVar(&c.Audit.File, "audit-log", "", "append the audit log (JSONL) to this file")
	fs.StringVar(&c.Live.Addr, "live", "127.0.0.1:0", "address of the User's live view")
	fs.StringVar(&c.Live.URLFile, "live-url-file", desktop.DefaultURLFile(), "write the live view URL with its token to this file (mode 0600), where open-live reads it; empty for none")
	fs.StringVar(&c.Live.TLSCert, "live-tls-cert", "", "serve the live view over HTTPS with this certificate (PEM; with --live-tls-key); needed for a --live address other machines reach, unless --live-behind-proxy")
	fs.StringVar(&c.Live.TLSKey, "live-tls-key", "", "the key (PEM) of --live-tls-cert")
	fs.StringVar(&c.Live.BehindProxy, "live-behind-proxy", "", "the public https origin a reverse proxy serves the live view at (links name it; Host and Origin must)")
	fs.Var((*cli.StringList)(&c.Live.EmbedOrigins), "live-embed-origin", "an https origin whose pages may frame the live view (repeatable; needs https: --live-tls-cert or --live-behind-proxy)")
	fs.DurationVar(&c.Live.LinkTTL, "live-link-ttl", ui.DefaultLinkTTL, "how long the User's single-use link to the live view works, and a live-link login in which the User takes no turn")
	c.registerIdentity(fs)
	presence.RegisterFlag(fs, &c.passkeysFile)
	fs.BoolVar(&c.Live.InsecureTakeByLink, "insecure-take-by-link", false, "INSECURE, for tests and demos: whoever holds a live view link or its token takes control with no proof of the User's presence (only on a loopback live view; warned of at start and at every take)")
	fs.StringVar(&c.Offers.Command, "on-offer", "", "shell command run on each offer of control, with the User's link and the offer as JSON on its stdin (never in argv or env)")
	fs.DurationVar(&c.Offers.Timeout, "on-offer-timeout", supervisor.DefaultOnOfferTimeout, "how long one run of --on-offer may take")
	fs.StringVar(&c.Browser.DownloadsForAgent, "downloads-for-agent", "", "DIR: save a download the agent's action starts in this folder for the agent (off by default: downloads go to the User, offered in the live view in their turn)")
	fs.BoolVar(&c.Offers.NotifyDesktop, "notify", false, "show a desktop notification when the agent offers the User control (notify-send, osascript)")
	c.registerNetwork(fs)
}

// registerIdentity adds the flags of the operator's signed identity.
func (c *config) registerIdentity(fs *flag.FlagSet) {
	id := &c.identity
	fs.StringVar(&id.Subject, "user", "", "the User's subject (sub) at the operator's identity provider: the identity of --live-identity-header must name it")
	fs.StringVar(&id.Header, "live-identity-header", "", "NAME: every live view request (page, websocket, links) must carry in this header a JWT that the operator's authenticating proxy in front got signed for --user; others get 403 saying why")
	fs.StringVar(&id.JWKS, "live-identity-jwks", "", "URL|FILE: the identity provider's public keys (JWKS) that sign --live-identity-header: an https URL (http only on loopback) or a file")
	fs.StringVar(&id.Issuer, "live-identity-issuer", "", "the issuer (iss) the identity's JWT must name")
	fs.StringVar(&id.Audience, "live-identity-audience", "", "an audience (aud) the identity's JWT must include: this runtime's")
	fs.DurationVar(&id.Skew, "live-identity-skew", ui.DefaultIdentitySkew, "leeway on the identity's exp, nbf and iat for clocks that differ (at most 5m)")
	// A constant any process that reached the port could send, and that
	// showed in ps.
	cli.Removed(fs, "live-user-header", "use --live-identity-header NAME with --live-identity-jwks, --live-identity-issuer, --live-identity-audience and --user (a signed identity of the User, not a constant)")
}

// liveIdentity is the verifier the --live-identity-* flags describe
// (its JWKS file read now), nil when none is set.
func (c *config) liveIdentity() (*ui.Identity, error) {
	id := c.identity
	if id.Header == "" && id.JWKS == "" && id.Issuer == "" && id.Audience == "" {
		return nil, nil
	}
	if err := ui.CheckIdentity(&id); err != nil {
		return nil, cli.UsageErrorf("%v", err)
	}
	return ui.NewIdentity(&id)
}

// registerNetwork adds the flags for staging servers.
func (c *config) registerNetwork(fs *flag.FlagSet) {
	cli.RegisterNetwork(fs, &c.Browser.CAFile, &c.Browser.Resolve)
}

// registerCompany adds the flags that name the Company and the join.
func (c *config) registerCompany(fs *flag.FlagSet) {
	fs.StringVar(&c.Company, "company", "", "the Company: a domain, or an https URL whose poppy.json is discovered")
	fs.BoolVar(&c.Join.Skip, "no-join", false, "treat DOMAIN and its subdomains as the Company's website without a Session; requests there still declare browser-control v1 (for Company developers; cleartext http only to localhost)")
	fs.StringVar(&c.assertionCmd, "assertion-cmd", "", "command that prints a fresh browser credential (JWT) for the join")
	fs.DurationVar(&c.assertionTimeout, "assertion-timeout", session.DefaultCommandTimeout, "how long --assertion-cmd may run")
	fs.StringVar(&c.Join.ReturnTo, "return-to", "", "where the join lands (default https://DOMAIN/)")
}

// options are the runtime's options the flags describe; the live view's
// identity is made here (a JWKS file read), so a bad one is one error at
// once.
func (c *config) options() (supervisor.Options, error) {
	opts := c.Options
	var err error
	if opts.Live.Identity, err = c.liveIdentity(); err != nil {
		return opts, err
	}
	if d := opts.Browser.DownloadsForAgent; d != "" {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return opts, cli.UsageErrorf("--downloads-for-agent %s: not a folder", d)
		}
	}
	if c.assertionCmd != "" {
		opts.Join.Credentials = session.CommandSource{Command: c.assertionCmd, Timeout: c.assertionTimeout}
	}
	if c.passkeysFile != "" {
		opts.Live.Passkeys = presence.NewStore(c.passkeysFile)
	}
	opts.Browser.Args = append(append([]string(nil), c.browserArgs...), opts.Browser.Args...)
	if opts.Live.URLFile != "" {
		// The default is in the User's cache directory, which may not exist
		// yet; if it cannot be made, writing the file says why.
		_ = os.MkdirAll(filepath.Dir(opts.Live.URLFile), 0o700)
	}
	return opts, nil
}
