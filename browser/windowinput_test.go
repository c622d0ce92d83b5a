package browser_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser/browsertest"
)

// TestWindowInputBlocked: while window input is blocked (the agent holds
// control in headful mode), input that does not come through this
// package's dispatch, as a person's at the window does not, is dropped; our
// own dispatches (the agent's, the live view's) still arrive; allowed
// again, outside input arrives. A raw CDP Input.dispatchMouseEvent stands
// in for the person: the page cannot tell them apart.
func TestWindowInputBlocked(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	own := ownBrowser(t) // window input is browser-wide
	b, p := own.Browser(t), own.NewPage(t)
	html := `<button style="position:fixed;left:0;top:0;width:200px;height:100px" onclick="window.n=(window.n||0)+1">count</button>`
	if err := p.Goto(ctx, "data:text/html,"+url.PathEscape(html)); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		var n int
		for {
			err := p.MainFrame().Call(ctx, "", "() => window.n || 0", &n)
			if err == nil {
				return n
			}
			select {
			case <-ctx.Done():
				t.Fatalf("waiting to read the click count: %v", err)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	outside := func() {
		t.Helper()
		if err := browsertest.WindowClick(ctx, p, 50, 50); err != nil {
			t.Fatal(err)
		}
	}
	base := count()
	outside()
	if n := count(); n != base+1 {
		t.Fatalf("outside click before blocking: %d clicks, want %d", n, base+1)
	}
	if err := b.SetWindowInput(ctx, false); err != nil {
		t.Fatal(err)
	}
	outside()
	if n := count(); n != base+1 {
		t.Fatalf("outside click reached the page while blocked: %d clicks", n)
	}
	if err := p.Click(ctx, 50, 50); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != base+2 {
		t.Fatalf("our own click while blocked: %d clicks, want %d", n, base+2)
	}
	outside()
	if n := count(); n != base+2 {
		t.Fatalf("the block was not restored after our own click: %d clicks", n)
	}
	if err := b.SetWindowInput(ctx, true); err != nil {
		t.Fatal(err)
	}
	outside()
	if n := count(); n != base+3 {
		t.Fatalf("outside click after allowing: %d clicks, want %d", n, base+3)
	}
}
