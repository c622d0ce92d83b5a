package ui

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/internal/secret"
	"github.com/poppy-browser/poppy-browser/presence"
)

// LiveOptions configures a [Live] view.
type LiveOptions struct {
	// Addr is the address to listen on. "" means 127.0.0.1:0: loopback
	// only, on a free port.
	Addr string
	// Control is the state whose User handle the live view uses. Required.
	Control *control.Control
	// Page returns the page the User sees (the active tab, see
	// browser.Tabs.Active). It is read when a screencast starts and polled
	// while it runs, so the picture follows when it returns another page.
	// It may return nil while there is no page. Required.
	Page func() *browser.Page
	// Logger receives debug logs. Nil means discard. The token never reaches it.
	Logger *slog.Logger
	// Token is the secret in the live view's URL. "" means a random 256-bit
	// token for this run.
	Token string
	// Company is the Company's name as the User knows it (poppy.json's
	// organization name, else its domain). "" means "the Company".
	Company string
	// LinkTTL is how long a hand-off link ([Live.MintLink]) works. Zero
	// means [DefaultLinkTTL].
	LinkTTL time.Duration
	// Audit receives a line for each link minted, opened, refused and
	// revoked. Nil means none.
	Audit *audit.Log
	// Now is the clock for link expiry. Nil means time.Now.
	Now func() time.Time
	// TLSCert and TLSKey are PEM files: the live view serves HTTPS with
	// them. Empty means plain HTTP.
	TLSCert, TLSKey string
	// PublicURL is the public https origin a reverse proxy serves the live
	// view at: links are built with it, and Host and Origin must name it.
	// Empty means none. An Addr other machines can reach needs TLS or
	// PublicURL: NewLive refuses it otherwise.
	PublicURL string
	// EmbedOrigins are the https origins whose pages may frame the live
	// view (CSP frame-ancestors lists exactly them). They need TLS or
	// PublicURL. Empty means no page may frame it.
	EmbedOrigins []string
	// UserIdentity, when set, makes every request to the live view (its
	// page, websocket and links) carry the operator's signed identity of
	// the session's User, as the Personal Agent service's authenticating
	// proxy in front sets it ([Identity]); any other request gets 403 and
	// one line saying which check failed. Nil means none.
	UserIdentity *Identity
	// Router, when set, serves this live view on the Router's listener
	// (the MCP listener over --http, or one live view listener for every
	// Session) under a path of its own, /live/INSTANCE/KEY, instead of a
	// listener of its own: Addr is then unused. The same Host, Origin,
	// token and link rules apply there.
	Router *Router
	// Passkeys is the store of the User's paired devices: a view proves
	// the User's presence with a passkey ceremony against it (presence.go).
	// Nil means no passkey can prove anything here.
	Passkeys *presence.Store
	// InsecureTakeByLink keeps the link-holder take: a view opened with a
	// link, a login or the token is proved by it alone (insecure-link).
	// Only for tests and demos, only on a loopback live view (NewLive
	// refuses it elsewhere); every take through it is warned of.
	InsecureTakeByLink bool
	// Warnings receives a line on each take of InsecureTakeByLink (stderr
	// in the commands). Nil means none.
	Warnings io.Writer
	// MaxFileBytes bounds a file the User sends to the page's file
	// chooser in their turn (files.go). Zero means [DefaultMaxFileBytes].
	MaxFileBytes int
	// MaxDownloadBytes bounds a download of the User's turn offered in
	// the live view (downloads.go). Zero means [DefaultMaxDownloadBytes].
	MaxDownloadBytes int
}

// How long the live view waits for a request's header, and keeps an idle
// keep-alive connection: a connection that sends nothing, or half a
// request, is closed after headerTimeout.
const (
	headerTimeout = 5 * time.Second
	idleTimeout   = 30 * time.Second
)

// Live serves the live view: a web page showing the agent's tab and, while
// the User holds control, passing their mouse and keys to it. Create it with
// [NewLive], then [Live.Start]; [Live.Shutdown] stops it. Its methods are
// safe for concurrent use.
type Live struct {
	ctl     *control.Control
	page    func() *browser.Page
	log     *slog.Logger
	token   secret.Value
	addr    string
	site    sitePage // the HTML page and the hashes its CSP allows
	company string
	linkTTL time.Duration
	now     func() time.Time
	// auditLog gets the links' lines (links.go).
	auditLog *audit.Log
	remote   remote // TLS or the proxy's origin (remote.go)
	// identity verifies the User's signed identity on every request
	// (UserIdentity); nil when none is needed.
	identity *Identity
	// headerTimeout and idleTimeout bound a connection's header and idle
	// keep-alive time (the constants; tests shorten them).
	headerTimeout, idleTimeout time.Duration

	ctx    context.Context // lives until Shutdown; parent of every client and screencast
	cancel context.CancelFunc
	wg     sync.WaitGroup // client handlers and screencasts

	// base is the path the live view's page is served at; its websocket,
	// links and minting are below it: "/live" on its own listener,
	// /live/INSTANCE/KEY on a Router's.
	base   string
	router *Router // set when served on a Router (LiveOptions.Router)
	key    string  // the path segment naming it on the Router

	mu        sync.Mutex
	ln        net.Listener
	mounted   bool         // registered with the Router (Start)
	h         http.Handler // handler(), for the Router
	srv       *http.Server
	clients   map[*client]struct{}
	cast      *cast           // the running screencast, nil when none
	lastFrame []byte          // the latest frame message of the shown tab, for a client that joins
	lastCast  <-chan struct{} // closed when the latest screencast has stopped
	closed    bool
	unwatch   func() // ends the watch of control's events (links.go), from Start
	alert     string // shown in every viewer's status line while set (SetAlert)
	// controller is the viewer through which the User took control, for
	// the control epoch controllerEpoch (viewer.go).
	controller      *client
	controllerEpoch uint64
	finished        *storyMsg // set by Finish: the agent's task is over
	// links are the hand-off links minted, viewers the logins they were
	// exchanged for, both by their secret's hash (links.go, login.go).
	links   map[[32]byte]*linkEntry
	viewers map[[32]byte]*viewerSession

	// step is where the offer's step is during the User's turn (step.go),
	// for a viewer who joins; framed wakes its follower after each frame;
	// stepGen names the latest follower, the only one that may set step;
	// stepEvery, when set (tests), is used for stepPoll.
	step      *boxMsg
	stepGen   uint64
	stepEvery time.Duration
	framed    chan struct{}

	// onFrame, when set (tests), is called for each frame sent to clients.
	onFrame func()

	// The User's presence (presence.go): the paired devices, the relying
	// party made from them once served (rp, under mu), and the insecure
	// link-holder take (the identity check is identity, above).
	passkeys *presence.Store
	rp       *presence.Party
	pairs    *pairLinks // pairing links minted for the terminal UI (pairing.go)
	insecure bool
	warnings io.Writer

	turnFiles // files in and out of the User's turn (files.go), under mu
}

// NewLive checks opts and prepares a live view. It listens on nothing yet.
func NewLive(opts *LiveOptions) (*Live, error) {
	if opts == nil || opts.Control == nil {
		return nil, errors.New("creating live view: no control")
	}
	if opts.Page == nil {
		return nil, errors.New("creating live view: no page")
	}
	tok := opts.Token
	if tok == "" {
		var err error
		if tok, err = randomToken(); err != nil {
			return nil, fmt.Errorf("creating live view: making a token: %w", err)
		}
	}
	site, err := buildSitePage()
	if err != nil {
		return nil, fmt.Errorf("creating live view: %w", err)
	}
	l := &Live{
		ctl:     opts.Control,
		page:    opts.Page,
		log:     opts.Logger,
		token:   secret.New(tok),
		addr:    opts.Addr,
		site:    site,
		company: opts.Company,
		clients: map[*client]struct{}{},
		linkTTL: opts.LinkTTL,
		now:     opts.Now,
		links:   map[[32]byte]*linkEntry{},
		viewers: map[[32]byte]*viewerSession{},
		framed:  make(chan struct{}, 1),

		passkeys: opts.Passkeys,
		pairs:    newPairLinks(DefaultPairTTL, opts.Now),
		insecure: opts.InsecureTakeByLink,
		warnings: opts.Warnings,

		turnFiles: turnFiles{fileLimit: opts.MaxFileBytes, downloadLimit: opts.MaxDownloadBytes},

		auditLog:      opts.Audit,
		identity:      opts.UserIdentity,
		headerTimeout: headerTimeout,
		idleTimeout:   idleTimeout,
	}
	// On a Router, Addr is unused: the Router's listener serves the live
	// view, and was checked where it was made (Router.Listen, or the
	// caller's check of the --http listener).
	addr := opts.Addr
	if opts.Router != nil {
		addr = ""
	}
	if l.remote, err = newRemote(addr, opts); err != nil {
		return nil, fmt.Errorf("creating live view: %w", err)
	}
	if opts.InsecureTakeByLink && (opts.TLSCert != "" || !insecureAllowed(addr, opts)) {
		return nil, errors.New("creating live view: --insecure-take-by-link is refused on a live view other machines can reach (only a loopback address, no proxy)")
	}
	if l.linkTTL <= 0 {
		l.linkTTL = DefaultLinkTTL
	}
	if l.now == nil {
		l.now = time.Now
	}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	if l.addr == "" {
		l.addr = "127.0.0.1:0"
	}
	l.base = "/live"
	if opts.Router != nil {
		key, err := randomToken()
		if err != nil {
			return nil, fmt.Errorf("creating live view: making its path: %w", err)
		}
		// The key names the live view's path, not a credential: the token,
		// a link or a login is still needed, and it is a fresh random value
		// unrelated to them.
		l.router, l.key = opts.Router, key[:32]
		l.base = opts.Router.prefix() + l.key
	}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	l.h = l.handler()
	return l, nil
}

// Start listens on the address and serves in a goroutine.
func (l *Live) Start() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errors.New("starting live view: shut down")
	}
	if l.ln != nil || l.mounted {
		return errors.New("starting live view: already started")
	}
	if l.router != nil {
		on := l.router.Addr()
		if on == nil {
			return errors.New("starting live view: its Router is not served on a listener (give NewRouter its address, or call Listen first)")
		}
		l.router.add(l.key, l)
		l.mounted = true
		l.startLocked()
		l.log.Info("live view served", "on", on.String(), "instance", l.router.instance)
		return nil
	}
	ln, err := net.Listen("tcp", l.addr)
	if err != nil {
		return fmt.Errorf("starting live view: %w", err)
	}
	if c := l.remote.cert; c != nil {
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{*c}, MinVersion: tls.VersionTLS12})
	}
	l.ln = ln
	l.srv = &http.Server{
		Handler:           l.h,
		ReadHeaderTimeout: l.headerTimeout,
		IdleTimeout:       l.idleTimeout,
		ErrorLog:          slog.NewLogLogger(l.log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return l.ctx },
	}
	l.srv.RegisterOnShutdown(l.closeClients)
	srv := l.srv
	l.startLocked()
	l.wg.Go(func() { // Shutdown waits for it
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			l.log.Error("live view stopped serving", "err", err)
		}
	})
	l.log.Info("live view listening", "addr", ln.Addr().String())
	return nil
}

// startLocked starts what runs beside the requests: the watch of
// control's events and the sweep of logins. l.mu is held.
func (l *Live) startLocked() {
	l.unwatch = control.Watch(l.ctx, l.ctl, l.revokeOn)
	l.wg.Go(func() { l.sweepLoginsEvery(l.ctx) })
}

// Shutdown stops accepting connections, closes every websocket, stops the
// screencast and waits for them until ctx ends.
func (l *Live) Shutdown(ctx context.Context) error {
	l.mu.Lock()
	l.closed = true
	srv, mounted := l.srv, l.mounted
	l.mu.Unlock()
	var err error
	if srv != nil {
		err = srv.Shutdown(ctx)
	}
	if mounted {
		// No new request reaches it; those in flight end with l.ctx.
		l.router.remove(l.key, l)
	}
	l.cancel()
	l.mu.Lock()
	unwatch := l.unwatch
	l.mu.Unlock()
	if unwatch != nil {
		unwatch()
	}
	l.closeClients()
	l.revokeAll()
	done := make(chan struct{})
	go func() {
		l.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		err = errors.Join(err, ctx.Err())
	}
	if err != nil {
		return fmt.Errorf("shutting down live view: %w", err)
	}
	return nil
}

// SetAlert shows msg in the status line of every viewer, and of every
// viewer who connects while it is set (the audit log cannot be written,
// for one); "" clears it. Messages are the runtime's, never a page's.
func (l *Live) SetAlert(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.alert = msg
	if msg == "" {
		return
	}
	for c := range l.clients {
		c.queue(errorMsg{Type: "error", Message: msg})
	}
}

// Clients is the number of connected websockets.
func (l *Live) Clients() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.clients)
}

// closeClients closes every websocket; their handlers then clean up.
func (l *Live) closeClients() {
	l.mu.Lock()
	cs := make([]*client, 0, len(l.clients))
	for c := range l.clients {
		cs = append(cs, c)
	}
	l.mu.Unlock()
	for _, c := range cs {
		c.close()
	}
}
