package ui

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/poppy-browser/poppy-browser/internal/loopback"
)

// listenAddr is the address the live view is reached on (its own
// listener's, or its Router's), nil before Start. l.mu is held.
func (l *Live) listenAddrLocked() net.Addr {
	if l.mounted {
		return l.router.Addr()
	}
	if l.ln == nil {
		return nil
	}
	return l.ln.Addr()
}

// URL is the live view's address with its token. Show it only to the User.
// It is "" before Start.
func (l *Live) URL() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.listenAddrLocked() == nil {
		return ""
	}
	return l.originLocked() + l.base + "?token=" + l.token.Reveal()
}

// originLocked is the live view's origin as the User reaches it. l.mu
// must be held and Start done.
func (l *Live) originLocked() string {
	if p := l.remote.public; p != nil {
		return p.String()
	}
	return l.remote.scheme() + "://" + urlHost(l.listenAddrLocked())
}

// baseURL is the live view's origin as the User reaches it, "" before
// Start.
func (l *Live) baseURL() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.listenAddrLocked() == nil {
		return ""
	}
	return l.originLocked()
}

// urlHost is the host:port to put in the URL: a loopback or unspecified
// listen address (0.0.0.0, ::) is reached as localhost, a name a
// passkey's RP ID can be (an IP address cannot).
func urlHost(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String()
	}
	ip := ta.IP
	if ip == nil || ip.IsUnspecified() || ip.IsLoopback() {
		return net.JoinHostPort("localhost", fmt.Sprint(ta.Port))
	}
	return net.JoinHostPort(ip.String(), fmt.Sprint(ta.Port))
}

// insecureAllowed reports whether --insecure-take-by-link may serve at
// addr: only on a loopback address, with no proxy's public origin ("" is
// the default loopback address; a Router's listener is checked where it
// was made, so a Router on loopback is allowed).
func insecureAllowed(addr string, opts *LiveOptions) bool {
	if opts.PublicURL != "" || len(opts.EmbedOrigins) > 0 {
		return false
	}
	if opts.Router != nil {
		a, ok := opts.Router.Addr().(*net.TCPAddr)
		return ok && a.IP.IsLoopback()
	}
	return addr == "" || loopback.Addr(addr)
}

// WriteURLFile writes [Live.URL] and a newline to path with mode 0600,
// replacing the file atomically.
func (l *Live) WriteURLFile(path string) error {
	u := l.URL()
	if u == "" {
		return errors.New("writing live view url: not started")
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".live-url-*")
	if err != nil {
		return fmt.Errorf("writing live view url: %w", err)
	}
	_, werr := f.WriteString(u + "\n")
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing live view url: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing live view url: %w", err)
	}
	return nil
}
