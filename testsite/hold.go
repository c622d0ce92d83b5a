package testsite

import (
	"net/http"
	"sync"
)

// Held is a response the Site holds back: the next request for its host
// and path waits, once it has arrived, until Release, so that a test can
// act while a navigation to it is in flight (between the request and the
// commit of its document).
type Held struct {
	host, path string
	arrived    chan struct{}
	released   chan struct{}
	release    sync.Once
}

// Hold holds back the response to the next GET of path on host (such as
// CompanyDomain and "/fixtures/webmcp/onload-submit.html") until the
// returned Held is released. A test must Release it.
func (s *Site) Hold(host, path string) *Held {
	h := &Held{host: host, path: path, arrived: make(chan struct{}), released: make(chan struct{})}
	s.mu.Lock()
	s.holds = append(s.holds, h)
	s.mu.Unlock()
	return h
}

// Arrived is closed when the held request has arrived.
func (h *Held) Arrived() <-chan struct{} { return h.arrived }

// Release lets the held response go on. It may be called more than once.
func (h *Held) Release() { h.release.Do(func() { close(h.released) }) }

// wait holds r if a Held names it: the first such request waits for
// Release (or for the client to go away).
func (s *Site) wait(host string, r *http.Request) {
	if r.Method != http.MethodGet {
		return
	}
	s.mu.Lock()
	var h *Held
	for i, x := range s.holds {
		if x.host == host && x.path == r.URL.Path {
			h = x
			s.holds = append(s.holds[:i:i], s.holds[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
	if h == nil {
		return
	}
	close(h.arrived) // once: h is no longer listed
	select {
	case <-h.released:
	case <-r.Context().Done():
	}
}
