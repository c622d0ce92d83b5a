package mcpserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// cancels tracks one HTTP session's calls in flight and which of them the
// client cancelled, so that their responses are dropped (the go-sdk writes
// one on the call's stream after the handler returns).
type cancels struct {
	mu        sync.Mutex
	inFlight  map[string]bool
	cancelled map[string]bool
}

// messages decodes a POST body: one JSON-RPC message or a batch.
func messages(body []byte) []*jsonrpc.Request {
	var raws []json.RawMessage
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if json.Unmarshal(trimmed, &raws) != nil {
			return nil
		}
	} else {
		raws = []json.RawMessage{trimmed}
	}
	var out []*jsonrpc.Request
	for _, raw := range raws {
		if m, err := jsonrpc.DecodeMessage(raw); err == nil {
			if r, ok := m.(*jsonrpc.Request); ok {
				out = append(out, r)
			}
		}
	}
	return out
}

// observe records the calls of a POST body and its cancellations, and
// returns the calls' keys (to forget once the POST ends).
func (c *cancels) observe(body []byte) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inFlight == nil {
		c.inFlight, c.cancelled = map[string]bool{}, map[string]bool{}
	}
	var calls []string
	for _, r := range messages(body) {
		switch {
		case r.IsCall():
			k := idKey(r.ID)
			c.inFlight[k] = true
			calls = append(calls, k)
		case r.Method == "notifications/cancelled":
			var p struct {
				RequestID any `json:"requestId"`
			}
			if json.Unmarshal(r.Params, &p) == nil {
				if id, err := jsonrpc.MakeID(p.RequestID); err == nil && c.inFlight[idKey(id)] {
					c.cancelled[idKey(id)] = true
				}
			}
		}
	}
	return calls
}

func (c *cancels) done(calls []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range calls {
		delete(c.inFlight, k)
		delete(c.cancelled, k)
	}
}

func (c *cancels) isCancelled(k string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cancelled[k]
}

// dropCancelled is a ResponseWriter for a call's event stream that leaves
// out the events answering a cancelled call.
type dropCancelled struct {
	http.ResponseWriter
	c   *cancels
	buf []byte
}

func (d *dropCancelled) Write(p []byte) (int, error) {
	if !strings.HasPrefix(d.Header().Get("Content-Type"), "text/event-stream") {
		return d.ResponseWriter.Write(p)
	}
	d.buf = append(d.buf, p...)
	for {
		i := bytes.Index(d.buf, []byte("\n\n"))
		if i < 0 {
			return len(p), nil
		}
		event := d.buf[:i+2]
		d.buf = d.buf[i+2:]
		if d.answersCancelled(event) {
			continue
		}
		if _, err := d.ResponseWriter.Write(event); err != nil {
			return len(p), err
		}
	}
}

// answersCancelled reports whether an SSE event carries the response of a
// cancelled call.
func (d *dropCancelled) answersCancelled(event []byte) bool {
	for line := range strings.SplitSeq(string(event), "\n") {
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		m, err := jsonrpc.DecodeMessage([]byte(strings.TrimSpace(data)))
		if resp, isResp := m.(*jsonrpc.Response); err == nil && isResp && d.c.isCancelled(idKey(resp.ID)) {
			return true
		}
	}
	return false
}

func (d *dropCancelled) Flush() {
	if f, ok := d.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (d *dropCancelled) Unwrap() http.ResponseWriter { return d.ResponseWriter }
