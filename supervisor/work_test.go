package supervisor

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"
)

// TestFailedWorkLeavesTheInjectorRunning: a part of the work beside a
// Session that fails ends the rest of that work, but not the injector's:
// while the Session lives a take needs it to set busy frames. Close ends
// it.
func TestFailedWorkLeavesTheInjectorRunning(t *testing.T) {
	ss := &Session{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	beside, injector := make(chan struct{}), make(chan struct{})
	failed := errors.New("failed on purpose")
	ss.run(func(ctx context.Context) error { <-ctx.Done(); close(beside); return nil })
	ss.run(func(context.Context) error { return failed })
	ss.work.parts = append(ss.work.parts, part{stage: stageInjector, name: "injector",
		run: func(ctx context.Context) error { <-ctx.Done(); close(injector); return nil }})
	ss.startWork(t.Context())
	select {
	case <-beside:
	case <-time.After(time.Minute):
		t.Fatal("the work beside the failed part went on")
	}
	select {
	case <-injector:
		t.Fatal("a failed part of the work beside the Session ended the injector's")
	case <-time.After(100 * time.Millisecond):
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := ss.work.wait(ctx); !errors.Is(err, failed) {
		t.Errorf("wait: %v, want the failed part's error", err)
	}
	select {
	case <-injector:
	default:
		t.Error("Close's wait returned with the injector's work still running")
	}
}
