package session

import (
	"context"
	"testing"
	"time"
)

// testContext bounds a test's discovery, join and credential calls: a
// minute, far more than a loopback server needs on a loaded machine. The
// calls' errors name the step that ran out of time.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}
