package injector_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/injector"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestRunEndsWorkStuckOnADialog: the work a switch leaves behind for a
// tab whose dialog nobody answers (a hostile page keeps it open) ends when
// Run's ctx does, and Run returns; a switch after that leaves nothing
// behind and does not wait for Run.
func TestRunEndsWorkStuckOnADialog(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	args := serveHTTPS(t, map[string]string{
		"company.test/alerting": `<button style="position:fixed;left:0;top:0;width:200px;height:60px" onclick="alert('answer me')">alert</button>`,
	})
	b, err := browser.Launch(ctx, &browser.Options{Args: args})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("closing the browser: %v", err)
		}
	})
	in, err := injector.New(&injector.Options{Domain: "company.test", Browser: b})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Install(ctx); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	ran := make(chan error, 1)
	go func() { ran <- in.Run(runCtx) }()

	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Navigate(ctx, "https://company.test/alerting"); err != nil {
		t.Fatal(err)
	}
	if err := p.Click(ctx, 100, 30); !errors.Is(err, browser.ErrDialogOpen) {
		t.Fatalf("the click: %v, want the dialog open", err)
	}
	if err := in.Set(ctx, spec.ControllerUser); err != nil {
		t.Fatalf("a switch with a dialog open: %v", err)
	}
	if err := in.Run(ctx); err == nil {
		t.Error("a second Run ran")
	}
	select {
	case err := <-ran:
		t.Fatalf("Run returned before its ctx ended: %v", err)
	default:
	}
	stop() // the dialog is still open: the frame's work is stuck on it
	select {
	case err := <-ran:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Run did not return after its ctx ended, stuck on the dialog")
	}
	if err := in.Set(ctx, spec.ControllerAgent); err != nil {
		t.Errorf("a switch after Run ended: %v", err)
	}
	if _, open := p.Dialog(); !open {
		t.Error("the dialog closed: the test proved nothing")
	}
}
