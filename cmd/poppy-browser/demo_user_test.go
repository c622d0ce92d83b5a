package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestDemoAutoUserFalse: an explicit --auto-user=false is honoured when
// stdin is not a terminal: the demo leaves the User's part to the live
// view (and says so) instead of playing it; the agent waits for them.
func TestDemoAutoUserFalse(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var stdout, stderr syncBuffer
	dctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- demoWith(dctx, []string{"--auto-user=false", "--tui=false"}, strings.NewReader(""), &stdout, &stderr, nil)
	}()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(stdout.String(), "agent: offers the User control") {
		select {
		case err := <-done:
			t.Fatalf("the demo ended before the agent offered control: %v\n%s\n%s", err, stdout.String(), stderr.String())
		case <-ctx.Done():
			t.Fatalf("waiting for the agent's offer: %v\n%s", ctx.Err(), stdout.String())
		case <-tick.C:
		}
	}
	stop()
	t.Logf("the demo, stopped while the agent waits for the User: %v", <-done)
	out := stdout.String()
	if !strings.Contains(out, "you are the User") {
		t.Errorf("the demo does not tell the User it is theirs:\n%s", out)
	}
	if strings.Contains(out, "user: takes control") {
		t.Errorf("the demo played the User despite --auto-user=false:\n%s", out)
	}
}
