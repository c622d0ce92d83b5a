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
	"regexp"
	"strings"
	"sync"
)

// Router serves the live views of many Sessions on one listener, each
// under a path of its own: /live/INSTANCE/KEY (the page), with its
// websocket, links and minting below it. INSTANCE names this runtime
// process (a reverse proxy in front of several routes on it) and KEY is a
// random value per live view: it names the path, it opens nothing (the
// live view's token, a link or a login is still needed, with the same
// Host and Origin rules). A request for another instance gets 421, for a
// live view this process does not hold (never was, or ended) 404: never
// another User's live view. Create it with [NewRouter]; give it to each
// live view in [LiveOptions.Router], and serve [Router.ServeHTTP] under
// /live/ on the listener whose address it was given (or [Router.Listen]
// for a listener of its own). Its methods are safe for concurrent use.
type Router struct {
	instance string

	mu    sync.Mutex
	addr  net.Addr
	lives map[string]*Live
	srv   *http.Server // Listen's
	wg    sync.WaitGroup
}

// RouterPrefix is the path below which a [Router] serves: a listener
// shared with other handlers sends it every path that starts so.
const RouterPrefix = "/live/"

// InstanceHeader is the response header naming the runtime process that
// answered ([Router.Instance]): set on every live view and MCP response.
const InstanceHeader = "Poppy-Instance"

var instanceName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$`)

// CheckInstance reports why name cannot name a runtime instance: it goes
// in paths, headers and MCP session ids, so 1 to 63 letters, digits, '-'
// and '_', starting with a letter or digit.
func CheckInstance(name string) error {
	if !instanceName.MatchString(name) {
		return fmt.Errorf("--instance %q: want 1 to 63 letters, digits, '-' or '_' (a host name without dots will do)", name)
	}
	return nil
}

// NewRouter returns a Router for the runtime instance name, to be served
// on a listener at addr (nil until [Router.Listen]).
func NewRouter(instance string, addr net.Addr) (*Router, error) {
	if err := CheckInstance(instance); err != nil {
		return nil, err
	}
	return &Router{instance: instance, addr: addr, lives: map[string]*Live{}}, nil
}

// Instance is the runtime instance's name.
func (r *Router) Instance() string { return r.instance }

// Addr is the address of the listener the Router is served on.
func (r *Router) Addr() net.Addr {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addr
}

// Len is the number of live views the Router serves.
func (r *Router) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.lives)
}

// prefix is the path of this instance's live views, before their key.
func (r *Router) prefix() string { return RouterPrefix + r.instance + "/" }

func (r *Router) add(key string, l *Live) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lives[key] = l
}

func (r *Router) remove(key string, l *Live) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lives[key] == l {
		delete(r.lives, key)
	}
}

// ServeHTTP sends a request under /live/INSTANCE/KEY to that live view, or
// answers 421 (another instance's) or 404 (no such live view here).
func (r *Router) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	h := w.Header()
	h.Set(InstanceHeader, r.instance)
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	rest, ok := strings.CutPrefix(req.URL.Path, RouterPrefix)
	inst, rest, _ := strings.Cut(rest, "/")
	key, _, _ := strings.Cut(rest, "/")
	if !ok || inst == "" || key == "" {
		routerRefusal(w, http.StatusNotFound, "There is no live view at this address.\n")
		return
	}
	if inst != r.instance {
		// The proxy in front sent it to the wrong runtime process.
		routerRefusal(w, http.StatusMisdirectedRequest, "This live view is served by another runtime instance, not "+r.instance+
			": the reverse proxy must route /live/"+"INSTANCE/ to that instance.\n")
		return
	}
	r.mu.Lock()
	l := r.lives[key]
	r.mu.Unlock()
	if l == nil {
		routerRefusal(w, http.StatusNotFound, "This live view has ended (its session is over), or it is not on this runtime.\n")
		return
	}
	l.h.ServeHTTP(w, req)
}

func routerRefusal(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Connection", "close")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, text)
}

// Listen serves the Router on a listener of its own at addr (over TLS with
// certFile and keyFile when set), until [Router.Shutdown]. opts' TLS and
// PublicURL are checked as a live view's ([CheckServing]).
func (r *Router) Listen(addr string, opts *LiveOptions, log *slog.Logger) error {
	if opts == nil {
		opts = &LiveOptions{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	rem, err := newRemote(addr, opts)
	if err != nil {
		return fmt.Errorf("starting live view: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("starting live view: %w", err)
	}
	if c := rem.cert; c != nil {
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{*c}, MinVersion: tls.VersionTLS12})
	}
	mux := http.NewServeMux()
	mux.Handle(RouterPrefix, r)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: headerTimeout, IdleTimeout: idleTimeout,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	r.mu.Lock()
	if r.srv != nil {
		r.mu.Unlock()
		ln.Close()
		return errors.New("starting live view: already listening")
	}
	r.srv, r.addr = srv, ln.Addr()
	r.mu.Unlock()
	r.wg.Go(func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("live view stopped serving", "err", err)
		}
	})
	log.Info("live view listening", "addr", ln.Addr().String(), "instance", r.instance)
	return nil
}

// Shutdown stops Listen's listener (the live views themselves end with
// their Sessions).
func (r *Router) Shutdown(ctx context.Context) error {
	r.mu.Lock()
	srv := r.srv
	r.mu.Unlock()
	if srv == nil {
		return nil
	}
	err := srv.Shutdown(ctx)
	r.wg.Wait()
	return err
}
