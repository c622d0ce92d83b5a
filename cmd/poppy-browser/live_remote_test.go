package main

import (
	"io"
	"strings"
	"testing"
)

// TestLiveOffLoopbackNeedsTLSOrProxy: a --live address other machines
// reach, without TLS or a proxy's origin, is refused before any browser,
// in one line that says what to add.
func TestLiveOffLoopbackNeedsTLSOrProxy(t *testing.T) {
	err := run(t.Context(), []string{"mcp", "--company", "airline.test", "--no-join", "--live", "0.0.0.0:0"}, strings.NewReader(""), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--live-tls-cert") || !strings.Contains(err.Error(), "--live-behind-proxy") || strings.Contains(err.Error(), "\n") {
		t.Errorf("err = %v, want one line naming --live-tls-cert and --live-behind-proxy", err)
	}
}
