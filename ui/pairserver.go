package ui

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/poppy-browser/poppy-browser/presence"
)

// PairServer serves one pairing link on loopback for `poppy-browser
// pair`, run in the User's own terminal: the link is printed there only.
// Its origin is http://localhost:PORT, so the passkey is registered for
// the RP ID "localhost", the one every loopback live view has. Create it
// with [NewPairServer]; [PairServer.Wait] returns the device paired;
// [PairServer.Close] stops it.
type PairServer struct {
	ln    net.Listener
	srv   *http.Server
	pairs *pairLinks
	rp    *presence.Party
	tok   string
	exp   time.Time
	done  chan presence.Device
}

// NewPairServer listens on a free loopback port and mints its one
// pairing link, working for ttl (zero: [DefaultPairTTL]), for devices
// saved in store.
func NewPairServer(store *presence.Store, ttl time.Duration) (*PairServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("pairing: %w", err)
	}
	s := &PairServer{ln: ln, pairs: newPairLinks(ttl, nil), done: make(chan presence.Device, 1)}
	if s.rp, err = presence.NewParty(s.origin(), store); err != nil {
		ln.Close()
		return nil, err
	}
	if s.tok, s.exp, err = s.pairs.mint(); err != nil {
		ln.Close()
		return nil, fmt.Errorf("pairing: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /pair/{token}", func(w http.ResponseWriter, r *http.Request) {
		s.pairs.servePairPage(w, r.PathValue("token"), "'none'")
	})
	mux.HandleFunc("POST /pair/{token}/{step}", s.serveStep)
	s.srv = &http.Server{Handler: s.guard(mux), ReadHeaderTimeout: headerTimeout, IdleTimeout: idleTimeout}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

func (s *PairServer) origin() string {
	return "http://localhost:" + strconv.Itoa(s.ln.Addr().(*net.TCPAddr).Port)
}

// Link is the pairing link and when it stops working. Show it only to
// the User, in their terminal.
func (s *PairServer) Link() PairLink {
	return PairLink{URL: s.origin() + "/pair/" + s.tok, Expires: s.exp}
}

// guard answers only requests for localhost on its port (no DNS
// rebinding; an IP address cannot hold the passkey).
func (s *PairServer) guard(next http.Handler) http.Handler {
	want := "localhost:" + strconv.Itoa(s.ln.Addr().(*net.TCPAddr).Port)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.EqualFold(r.Host, want) {
			w.Header().Set("Connection", "close")
			http.Error(w, "open the pairing link as printed (http://"+want+"/...)", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *PairServer) serveStep(w http.ResponseWriter, r *http.Request) {
	if !pairRequestOK(r, s.origin()) {
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusForbidden)
		return
	}
	tok := r.PathValue("token")
	switch r.PathValue("step") {
	case "begin":
		s.pairs.serveBegin(w, tok, s.rp)
	case "finish":
		s.pairs.serveFinish(w, r, tok, s.rp, func(d presence.Device) {
			select {
			case s.done <- d:
			default:
			}
		})
	default:
		http.NotFound(w, r)
	}
}

// ErrPairExpired is returned by [PairServer.Wait] when the link expired
// with no device paired.
var ErrPairExpired = errors.New("the pairing link expired with no device paired")

// Wait returns the device paired through the link, or ErrPairExpired
// when the link expires first, or ctx's error.
func (s *PairServer) Wait(ctx context.Context) (presence.Device, error) {
	t := time.NewTimer(time.Until(s.exp))
	defer t.Stop()
	select {
	case d := <-s.done:
		return d, nil
	case <-t.C:
		return presence.Device{}, ErrPairExpired
	case <-ctx.Done():
		return presence.Device{}, ctx.Err()
	}
}

// Close stops serving.
func (s *PairServer) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}
