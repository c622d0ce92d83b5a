package mcpserver

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// probes serves what an orchestrator asks beside MCP: GET /healthz (the
// process serves) and GET /readyz (ready() holds and a new session would
// be admitted) without the token, each answering its status and one word
// only; GET /metrics (Prometheus text format) with the token, like MCP.
// Every other request goes to next.
func (s *Server) probes(token string, ready func() bool, next http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { word(w, http.StatusOK, "ok") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if (ready != nil && !ready()) || (s.reg.max > 0 && s.reg.count() >= s.reg.max) {
			word(w, http.StatusServiceUnavailable, "not ready")
			return
		}
		word(w, http.StatusOK, "ready")
	})
	mux.Handle("GET /metrics", requireBearer(token, promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})))
	mux.Handle("/", next)
	return mux
}

func word(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(text + "\n"))
}
