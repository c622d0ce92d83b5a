package mcpserver

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/spec"
)

// TestHTTPNoResponseAfterCancel: over Streamable HTTP too, a call the
// client cancels gets no response on its stream; the stream just ends.
func TestHTTPNoResponseAfterCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	rts := newFakeRuntimes()
	srv := NewServer(rts.open, nil)
	h := serveHTTP(t, ctx, srv, HTTPOptions{})
	do := func(session, body string) *http.Response {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+h.token)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		if session != "" {
			req.Header.Set(sessionHeader, session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := do("", initializeBody)
	session := resp.Header.Get(sessionHeader)
	resp.Body.Close()
	do(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
	do(session, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":%q}}`, spec.ToolControlStatus)).Body.Close()
	if err := rts.fixture(session).Control.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	calls := make(chan *http.Response, 1)
	go func() {
		calls <- do(session, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":%q,"arguments":{"timeout_seconds":60}}}`, spec.ToolWaitForControl))
	}()
	waitUntil(t, ctx, "the wait is in flight", func() bool { return srv.reg.lookupID(session).idleSince(time.Now()) == 0 })
	do(session, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`).Body.Close()
	var call *http.Response
	select {
	case call = <-calls:
	case <-ctx.Done():
		t.Fatal("the cancelled call's stream never answered")
	}
	defer call.Body.Close()
	var events []string
	sc := bufio.NewScanner(call.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data:") {
			events = append(events, sc.Text())
		}
	}
	for _, e := range events {
		if strings.Contains(e, `"id":3`) {
			t.Errorf("a response to the cancelled call: %s", e)
		}
	}
}
