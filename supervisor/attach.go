package supervisor

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
)

// Backoff between attempts to attach (or launch) a browser after the last
// one went away or could not be had: the first retry may come at once, a
// failed attempt doubles the wait up to the cap, each wait with ±20 %
// jitter so a fleet of runtimes does not knock on a restarted pool at once.
const (
	attachBackoffBase = 500 * time.Millisecond
	attachBackoffCap  = 30 * time.Second
)

// BrowserStats counts what became of the Server's browser; see
// [Server.BrowserStats].
type BrowserStats struct {
	Attached   bool   // a browser is attached (or launched) and not gone
	Attaches   uint64 // browsers attached or launched, the first included
	Failures   uint64 // attempts that failed (a pool's refusal, no answer)
	Losses     uint64 // browsers that went away
	Reattaches uint64 // browsers attached after one went away or failed
}

// BrowserStats reports the browser's state and counts. It is safe for
// concurrent use.
func (s *Server) BrowserStats() BrowserStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Attached = s.browser != nil && s.browser.Gone() == nil
	return st
}

// liveBrowser returns the Server's browser, attaching again (launching
// again without CDPURL) when the last one went away or never came. Old
// Sessions keep the browser they opened on (theirs answers browser_gone);
// a new Session gets a new one. Attempts are one at a time and spaced by
// a bounded backoff; a wait or attempt ends with ctx.
func (s *Server) liveBrowser(ctx context.Context) (*browser.Browser, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.attachMu.Lock()
	defer s.attachMu.Unlock()
	s.mu.Lock()
	b, closed, next := s.browser, s.closed, s.nextAttach
	if !closed {
		s.cancelAttach = cancel // Close stops this attach
		defer func() {
			s.mu.Lock()
			s.cancelAttach = nil
			s.mu.Unlock()
		}()
	}
	s.mu.Unlock()
	if closed {
		return nil, errors.New("opening a session: the runtime is closing")
	}
	if b != nil && b.Gone() == nil {
		return b, nil
	}
	if wait := time.Until(next); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			s.mu.Lock()
			last := s.attachErr
			s.mu.Unlock()
			if last != nil {
				return nil, fmt.Errorf("%w (next attempt in %s)", last, wait.Round(time.Second))
			}
			return nil, fmt.Errorf("waiting to attach the browser again: %w", ctx.Err())
		}
	}
	if b != nil {
		_ = b.Close() // frees what the gone one held (a launched one's profile)
	}
	nb, err := s.launchBrowser(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.browser = nil
		s.attachErr = err
		s.failures++
		s.stats.Failures++
		s.nextAttach = time.Now().Add(attachBackoff(s.failures))
		s.log.Warn("browser attach failed", "err", err, "retry_after", time.Until(s.nextAttach).Round(time.Millisecond))
		return nil, err
	}
	if s.closed { // Close ran while we attached: it did not see nb
		_ = nb.Close()
		return nil, errors.New("opening a session: the runtime is closing")
	}
	s.adopt(nb)
	return nb, nil
}

// adopt makes b the Server's browser, counts it and watches for its loss.
// s.mu is held.
func (s *Server) adopt(b *browser.Browser) {
	again := s.stats.Attaches > 0 || s.failures > 0
	s.browser, s.attachErr, s.failures, s.unanswered = b, nil, 0, false
	s.nextAttach = time.Time{}
	s.stats.Attaches++
	if again {
		s.stats.Reattaches++
		s.log.Info("browser reattached", "attaches", s.stats.Attaches)
	} else {
		s.log.Info("browser attached")
	}
	go func() {
		<-b.Crashed()
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			return // our own Close, not a loss
		}
		s.stats.Losses++
		s.log.Warn("browser lost", "err", b.Gone())
	}()
}

// attachBackoff is the wait after the n-th failure in a row (n >= 1).
func attachBackoff(n int) time.Duration {
	d := attachBackoffCap
	if n < 8 {
		d = min(attachBackoffBase<<(n-1), attachBackoffCap)
	}
	jitter := 0.8 + 0.4*rand.Float64()
	return time.Duration(float64(d) * jitter)
}

// How often keepAttached asks the attached browser whether it answers,
// and how long it waits for the answer.
const (
	heartbeatEvery   = 2 * time.Second
	heartbeatTimeout = 5 * time.Second
)

// keepAttached keeps a browser attached until ctx ends (Close), for a Server
// of many Sessions: when the browser goes away (or never came) it attaches
// again at once, then with the backoff, without waiting for a new Session
// to ask; while one is attached it asks it every heartbeatEvery whether it
// answers. So [Server.Serving] fails within seconds of losing the pool and
// holds again once a connection succeeds, and a load balancer that reads
// /readyz sends Users only to a runtime that can open their browser.
func (s *Server) keepAttached(ctx context.Context) {
	for ctx.Err() == nil {
		s.mu.Lock()
		b, next := s.browser, s.nextAttach
		s.mu.Unlock()
		if b != nil && b.Gone() == nil {
			s.heartbeat(ctx, b)
			continue
		}
		if wait := time.Until(next); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return
			}
		}
		_, _ = s.liveBrowser(ctx) // a failure is counted, logged and spaced there
	}
}

// heartbeat asks b whether it answers every heartbeatEvery until it is
// gone (closing, or its connection lost) or ctx ends, and records in
// s.unanswered whether it did. A browser being closed is not asked: its
// connection may take a while to drop, and it is not a browser that does
// not answer.
func (s *Server) heartbeat(ctx context.Context, b *browser.Browser) {
	tick := time.NewTicker(heartbeatEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.Crashed():
			return
		case <-tick.C:
		}
		if b.Gone() != nil {
			return
		}
		pctx, cancel := context.WithTimeout(ctx, heartbeatTimeout)
		err := b.Ping(pctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if b.Gone() != nil { // closed while asked
			return
		}
		s.mu.Lock()
		if s.browser == b {
			if err != nil && !s.unanswered {
				s.log.Warn("browser does not answer", "err", err)
			} else if err == nil && s.unanswered {
				s.log.Info("browser answers again")
			}
			s.unanswered = err != nil && b.Gone() == nil
		}
		s.mu.Unlock()
	}
}
