package mcpserver

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// probes serves what an orchestrator asks beside MCP: GET /healthz (the
// process serves) and GET /readyz (ready() holds and a new session would
// be admitted) without the token, each answering its status and one word
// only; GET /metrics (Prometheus text format) through metrics, which
// checks the token as MCP's requests are. Every other request goes to next.
func (s *Server) probes(metrics http.Handler, ready func() bool, next http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { word(w, http.StatusOK, "ok") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if (ready != nil && !ready()) || (s.reg.max > 0 && s.reg.count() >= s.reg.max) {
			word(w, http.StatusServiceUnavailable, "not ready")
			return
		}
		word(w, http.StatusOK, "ready")
	})
	mux.Handle("GET /metrics", metrics)
	mux.Handle("/", next)
	return mux
}

// metricsHandler is /metrics's text, before its token check.
func (s *Server) metricsHandler() http.Handler {
	return promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
}

func word(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(text + "\n"))
}
