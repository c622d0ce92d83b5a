package mcpserver

import (
	"context"
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/spec"
)

// metrics are the server's Prometheus metrics, in a registry of its own
// (never the global one): sessions, tool calls and control changes.
type metrics struct {
	reg     *prometheus.Registry
	calls   *prometheus.CounterVec
	latency *prometheus.HistogramVec
	control *prometheus.CounterVec
	// subjects counts sessions by their subject's hash (httpauth.go).
	subjects *prometheus.CounterVec
	known    map[string]bool // tool names that may become labels
}

func newMetrics(sessions func() int) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "poppy_tool_calls_total",
			Help: "MCP tool calls answered, by tool and outcome (done, denied, failed)."}, []string{"tool", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "poppy_tool_call_seconds",
			Help:    "How long MCP tool calls took to answer, by tool.",
			Buckets: []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}}, []string{"tool"}),
		control: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "poppy_control_events_total",
			Help: "Changes of control: offer, take, hand_back, cancel, decline."}, []string{"event"}),
		subjects: newSubjectSessions(),
	}
	m.known = map[string]bool{}
	for _, e := range gate.Catalogue() {
		m.known[e.Tool] = true
	}
	for _, w := range controlTools {
		m.known[w.name] = true
	}
	m.reg.MustRegister(m.calls, m.latency, m.control, m.subjects,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "poppy_mcp_sessions_open",
			Help: "MCP sessions open, each with its own browser context."}, func() float64 { return float64(sessions()) }))
	return m
}

// middleware counts every tools/call with its tool, outcome and latency.
func (m *metrics) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		start := time.Now()
		res, err := next(ctx, method, req)
		tool := "unknown"
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && m.known[p.Name] {
			tool = p.Name // a name not of ours never becomes a label
		}
		m.latency.WithLabelValues(tool).Observe(time.Since(start).Seconds())
		m.calls.WithLabelValues(tool, outcomeOf(res, err)).Inc()
		return res, err
	}
}

// outcomeOf is a tool result's outcome; a status tool's (no outcome) is
// done, or failed when it is an error.
func outcomeOf(res mcp.Result, err error) string {
	r, ok := res.(*mcp.CallToolResult)
	if err != nil || !ok {
		return string(spec.OutcomeFailed)
	}
	var v struct {
		Outcome spec.Outcome `json:"outcome"`
	}
	if b, ok := r.StructuredContent.(json.RawMessage); ok {
		_ = json.Unmarshal(b, &v)
	}
	switch {
	case v.Outcome != "":
		return string(v.Outcome)
	case r.IsError:
		return string(spec.OutcomeFailed)
	}
	return string(spec.OutcomeDone)
}

// countControl counts the control changes of ctl until ctx ends or stop
// is called; it subscribes before it returns.
func (m *metrics) countControl(ctx context.Context, ctl control.Source) (stop func()) {
	return control.Watch(ctx, ctl, func(e control.Event) {
		if name := controlEvent(e); name != "" {
			m.control.WithLabelValues(name).Inc()
		}
	})
}

// controlEvent is the metric's label for an event.
func controlEvent(e control.Event) string {
	switch e.Kind {
	case control.Declined:
		return "decline"
	case control.Offered:
		return "offer"
	case control.Taken:
		return "take"
	case control.HandedBack:
		return "hand_back"
	case control.Cancelled:
		return "cancel"
	}
	return ""
}
