//go:build pooltest

package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestBrowserlessPoolFull is make pool-test's: a pool with room for one
// connection and no queue (CONCURRENT=1, QUEUED=0). A first runtime takes
// the slot; a second runtime's new session fails with browser_unavailable
// saying the pool is full (its 429), without the pool's body or token;
// once the first runtime ends and the pool reports the slot free, the
// second runtime's next session attaches and works.
func TestBrowserlessPoolFull(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	start, base, token, cdpURL, _ := poolSetup(t)
	startPool(t, ctx, start, base+"/json/version?token="+url.QueryEscape(token), "CONCURRENT=1", "QUEUED=0")

	first := startPoolRuntime(t, ctx, cdpURL)
	if r, _ := callTool(t, ctx, first.connect(t, ctx), "browser_navigate", map[string]any{"url": testsite.BookingURL()}); r["outcome"] != "done" {
		t.Fatalf("the first runtime through the pool: %v\n%s", r, first.stderr.String())
	}
	if p := pressure(t, ctx, base, token); p.Running != 1 || p.IsAvailable {
		t.Fatalf("the pool with the first runtime attached: %+v, want 1 running and no room", p)
	}

	second := startPoolRuntime(t, ctx, cdpURL)
	cs := second.connect(t, ctx)
	r, isError := callTool(t, ctx, cs, "browser_navigate", map[string]any{"url": testsite.BookingURL()})
	msg, _ := r["message"].(string)
	if r["reason"] != "browser_unavailable" || !isError {
		t.Fatalf("a session of the second runtime while the pool is full: %v (isError %v), want browser_unavailable", r, isError)
	}
	t.Logf("the second runtime's session while the pool is full: %s", msg)
	if !strings.Contains(msg, "the pool is full") || !strings.Contains(msg, "429") {
		t.Errorf("browser_unavailable message %q does not carry the pool's reason (full, 429)", msg)
	}
	st, _ := callTool(t, ctx, cs, "browser_control_status", nil)
	if be, _ := st["browser_error"].(string); !strings.Contains(be, "429") {
		t.Errorf("browser_control_status browser_error %q, want the pool's 429", be)
	}
	for what, text := range map[string]string{"the tool result": msg + " " + jsonOf(st), "stderr": second.stderr.String()} {
		if strings.Contains(text, token) {
			t.Errorf("%s shows the pool's token", what)
		}
		if strings.Contains(text, "concurrent sessions") { // Browserless's 429 body
			t.Errorf("%s quotes the pool's body: %s", what, text)
		}
	}

	_ = first.stop() // its websocket closes: the pool frees the slot
	waitUntil(t, ctx, "the pool reports its slot free (GET /pressure: running 0)", func() bool {
		return pressure(t, ctx, base, token).Running == 0
	})
	began := time.Now()
	if r, _ := callTool(t, ctx, second.connect(t, ctx), "browser_navigate", map[string]any{"url": testsite.BookingURL()}); r["outcome"] != "done" {
		t.Fatalf("the second runtime's next session once the slot was free: %v\n%s", r, second.stderr.String())
	}
	t.Logf("the next session navigated %s after the slot was free", time.Since(began).Round(time.Millisecond))
}

type poolPressure struct {
	Running     int  `json:"running"`
	IsAvailable bool `json:"isAvailable"`
}

// pressure reads Browserless's GET /pressure: its running connections and
// whether it has room for another.
func pressure(t *testing.T, ctx context.Context, base, token string) poolPressure {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/pressure?token="+url.QueryEscape(token), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET /pressure: %v", err)
	}
	defer resp.Body.Close()
	var body struct{ Pressure poolPressure }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("GET /pressure answered %s: %v", resp.Status, err)
	}
	return body.Pressure
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
