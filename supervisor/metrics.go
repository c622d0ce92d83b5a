package supervisor

import "github.com/prometheus/client_golang/prometheus"

// Serving reports whether the Server can take a new Session now: Start
// has ended without an error of its own (discovery, the audit log), Close
// has not begun, and a browser is attached and answered its last
// heartbeat. It turns false within seconds of losing the browser (a pool
// that went away, or stopped answering) and true again once the Server,
// which attaches again by itself, has one.
func (s *Server) Serving() bool {
	select {
	case <-s.ready:
	default:
		return false // still starting
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.startErr == nil && !s.closed && s.browser != nil && s.browser.Gone() == nil && !s.unanswered
}

// Collectors are the browser's Prometheus metrics, read from
// [Server.BrowserStats] when scraped: attaches, failed attempts, losses,
// reattaches, and whether a browser is attached.
func (s *Server) Collectors() []prometheus.Collector {
	counter := func(name, help string, v func(BrowserStats) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
			func() float64 { return float64(v(s.BrowserStats())) })
	}
	return []prometheus.Collector{
		counter("poppy_browser_attaches_total", "Browsers attached (or launched), the first included.", func(st BrowserStats) uint64 { return st.Attaches }),
		counter("poppy_browser_attach_failures_total", "Attempts to attach a browser that failed (a pool's refusal, no answer).", func(st BrowserStats) uint64 { return st.Failures }),
		counter("poppy_browser_losses_total", "Browsers that went away (crashed, killed, the pool closed the connection).", func(st BrowserStats) uint64 { return st.Losses }),
		counter("poppy_browser_reattaches_total", "Browsers attached after one went away or an attempt failed.", func(st BrowserStats) uint64 { return st.Reattaches }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "poppy_browser_attached", Help: "1 while a browser is attached, else 0."},
			func() float64 {
				if s.BrowserStats().Attached {
					return 1
				}
				return 0
			}),
	}
}
