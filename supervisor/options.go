package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/poppy-browser/poppy-browser/presence"
	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/ui"
)

// Options configures a [Supervisor]. The zero value (with Company set) joins
// the Company's Session in a headless Chromium found on PATH, with a live
// view on a free loopback port and no audit file. Its parts are grouped by
// what they configure: the join, the browser, the User's views, the
// offers of control and the audit log.
type Options struct {
	// Company is the Company: a domain ("airline.test") or an https URL whose
	// poppy.json is discovered. Required.
	Company string
	// Join is how the runtime joins the Company's Session.
	Join JoinOptions
	// Browser is the browser and its network.
	Browser BrowserOptions
	// Live is the User's views: the live view and the terminal UI.
	Live LiveOptions
	// Offers is how the User hears of an offer of control.
	Offers OfferOptions
	// Audit is the audit log.
	Audit AuditOptions

	// ContextPerSession gives every [Session] of a [Server] its own browser
	// context (cookies, storage, tabs), navigator.poppy, control state,
	// live view on a free port of Live.Addr's host, and audit lines with
	// its id: several Users' agents in one Chromium (MCP over --http).
	// False means one Session in the browser's first tab. [New] ignores
	// it.
	ContextPerSession bool

	// Logger receives debug logs. Nil means discard.
	Logger *slog.Logger

	// sessionWork, for tests, is more work beside each Session: each
	// function returns a worker of the Session it is given (export_test.go).
	sessionWork []func(ss *Session) worker
}

// JoinOptions are how the runtime joins the Company's Session.
type JoinOptions struct {
	// Skip treats Company's domain and its subdomains as the Company's
	// website without a Session: no discovery and no join. False
	// discovers poppy.json and joins.
	Skip bool
	// Credentials gives the browser credential for the join. Required
	// unless Skip.
	Credentials session.CredentialSource
	// ReturnTo is where the join lands. Empty means https://DOMAIN/.
	ReturnTo string
	// HTTPClient fetches poppy.json. Nil means [Options.Client]: a client
	// with a 20 s timeout that honours Browser.CAFile and Browser.Resolve.
	HTTPClient *http.Client
	// RetryCompanyFor keeps discovering the Company for this long while
	// its site does not answer (session.ErrUnreachable), from 0.5 s apart
	// doubling to 10 s: Sessions wait for it, and [Server.CompanyPending]
	// says why meanwhile. 0 fails at the first such error.
	RetryCompanyFor time.Duration
}

// BrowserOptions are the browser, how it reaches the Company, and the
// Session's gate in it.
type BrowserOptions struct {
	// Chromium is the browser binary. Empty means find chromium or chrome
	// on PATH.
	Chromium string
	// CDPURL attaches to a running browser's DevTools URL instead of
	// launching one. Empty means launch.
	CDPURL string
	// AttachTimeout bounds one attempt to attach to CDPURL: the
	// connection, a wait in a pool's queue (all its browsers busy), and
	// the first commands. Zero means 10 s; the command line's default is
	// DefaultAttachTimeout.
	AttachTimeout time.Duration
	// Headful shows the browser window; it also guards the window's own
	// input (see GuardWindow). False means headless.
	Headful bool
	// Args are extra Chromium flags, e.g. --host-resolver-rules. Nil
	// means none.
	Args []string
	// GuardWindow blocks the browser window's own input while the agent
	// holds control (always on with Headful; tests set it headless). False
	// means no guard when headless.
	GuardWindow bool
	// DownloadsForAgent is a folder where a download the agent's action
	// starts is saved for the agent (gate.Options.DownloadsForAgent).
	// Empty (the default) refuses it: downloads are the User's, offered
	// in the live view in their turn.
	DownloadsForAgent string

	// CAFile is a PEM file of CA certificates trusted besides the system's
	// for the Company's HTTPS, in discovery, the join and the browser
	// (staging servers; see network.go for how the browser trusts it).
	// Empty means the system's roots only.
	CAFile string
	// Resolve maps host names to addresses, "HOST=ADDR" with ADDR an IP or
	// IP:port, in discovery, the join and the browser alike. Nil means DNS.
	Resolve []string
	// TrustHosts are more host[:port]s (default port 443) whose
	// certificates the browser trusts once verified against CAFile, besides
	// the Company's domain and the Resolve hosts. Nil means none.
	TrustHosts []string
	// CompanyRequestHeaders are more headers the browser adds to every
	// request to the Company's hosts, and to no other host (check's
	// --header, for pages behind a login). Their values are secrets: never
	// logged. Nil means none; Poppy-Extensions is never replaced.
	CompanyRequestHeaders map[string]string

	// WatchMarks also installs the marks watcher, which reports marks added
	// after load (the conformance checker). False installs the scanner only.
	WatchMarks bool
	// Probe builds the Session's one gate in probe mode, for the
	// conformance checker: [Session.Prober] is its view, and its page is
	// the page of the probe in flight. False builds the agent's gate.
	Probe bool
}

// LiveOptions are the User's views of a Session: its live view and the
// terminal UI, and what is written for the User to read.
type LiveOptions struct {
	// Off starts no live view (the conformance checker). False starts one.
	Off bool
	// Addr is the live view's listen address. Empty means 127.0.0.1:0.
	Addr string
	// URLFile, when set, receives the live view's URL with its token
	// (mode 0600), for scripted users. Empty means no file. With
	// ContextPerSession it is not written: each Session's URL goes to
	// UserMessages with the session's id.
	URLFile string
	// TLSCert and TLSKey are PEM files the live view serves HTTPS with.
	// Empty means plain HTTP, which only a loopback Addr allows.
	TLSCert, TLSKey string
	// BehindProxy is the public https origin a reverse proxy serves the
	// live view at (links name it; Host and Origin must). Empty means
	// none.
	BehindProxy string
	// EmbedOrigins are the https origins whose pages may frame the live
	// view (the Personal Agent's own app). Nil means none may.
	EmbedOrigins []string
	// LinkTTL is how long the User's single-use link to the live view
	// works (one per offer). Zero means ui.DefaultLinkTTL (ten minutes).
	LinkTTL time.Duration
	// Router, when set, serves every Session's live view on its listener
	// under a path naming the Session (ui.Router), instead of a listener
	// per live view. Addr is then unused.
	Router *ui.Router
	// Identity, when set, verifies on every live view request the
	// operator's signed identity of the Session's User
	// (ui.LiveOptions.UserIdentity; ui.NewIdentity makes it, its subject
	// the runtime's User). Nil means none.
	Identity *ui.Identity
	// Passkeys is the store of the User's paired devices: a live view
	// proves the User's presence with a passkey ceremony against it
	// (ui.LiveOptions.Passkeys). Nil means no passkey proves anything here.
	Passkeys *presence.Store
	// InsecureTakeByLink lets the holder of a live view link or token take
	// control with no proof of presence (ui.LiveOptions.InsecureTakeByLink):
	// for tests and demos, only on a loopback live view, announced on
	// UserMessages at start and at every take.
	InsecureTakeByLink bool
	// UserMessages is where the live view's URL (with its token) is shown to
	// the User. Nil means it is not shown.
	UserMessages io.Writer
	// SessionNote says how the Session was joined, for the User's terminal
	// UI ("joined as a guest"). Empty means "joined".
	SessionNote string
	// QuitEnds says what the User quitting the terminal UI ends ("the
	// demo"), for its quit prompt. Empty means only the terminal UI closes.
	QuitEnds string
}

// OfferOptions are how the User hears of an offer of control beside the
// live view.
type OfferOptions struct {
	// Command is a shell command run on each offer of control with the
	// User's link and the offer as JSON on its standard input (see
	// [OfferNotice]); never in its arguments or environment. Its failure is
	// logged and never holds the agent. Empty means none.
	Command string
	// Timeout bounds one run of Command. Zero means
	// DefaultOnOfferTimeout.
	Timeout time.Duration
	// Announce writes a line to Live.UserMessages for each offer of
	// control, with the live view's URL, for a User who watches the
	// runtime's stderr. False writes none.
	Announce bool
	// NotifyDesktop shows a desktop notification (notify-send, osascript)
	// when the agent offers the User control, for a User without a
	// terminal. False shows none.
	NotifyDesktop bool
	// notify replaces desktop.Notify in tests.
	notify func(ctx context.Context, title, body string) bool
}

// AuditOptions are the audit log.
type AuditOptions struct {
	// File is the file the audit log is appended to (JSONL, mode 0600).
	// Empty means no file; observers of [Supervisor.Audit] still see
	// entries.
	File string
}

func (o *Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// Check reports, without any I/O, what Start would refuse in o at once: no
// Company, a Company that cannot be one, or a join without a credential
// source. A caller that starts the runtime in the background checks first,
// so such a mistake is one error at once rather than a failed tool later.
func (o *Options) Check() error {
	if !o.Live.Off {
		addr := o.Live.Addr
		if o.Live.Router != nil && o.Live.Router.Addr() != nil {
			addr = o.Live.Router.Addr().String() // the listener every live view is on
		}
		if err := ui.CheckServing(addr, &ui.LiveOptions{TLSCert: o.Live.TLSCert, TLSKey: o.Live.TLSKey, PublicURL: o.Live.BehindProxy,
			EmbedOrigins: o.Live.EmbedOrigins, InsecureTakeByLink: o.Live.InsecureTakeByLink}); err != nil {
			return fmt.Errorf("starting runtime: %w", err)
		}
	}
	switch {
	case o.Company == "":
		return errors.New("starting runtime: no Company")
	case o.Join.Skip:
		_, err := session.NoJoin(o.Company)
		return err
	}
	if err := session.CheckCompany(o.Company); err != nil {
		return err
	}
	if o.Join.Credentials == nil {
		return errors.New("joining: no credential source (use --assertion-cmd, or --no-join)")
	}
	return nil
}

// DefaultAttachTimeout is --attach-timeout's default: long enough to wait
// for a busy pool's queue, well inside a tool call's wait for its
// session's browser.
const DefaultAttachTimeout = 30 * time.Second
