package supervisor

import (
	"context"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/control"
)

// TestDesktopNoticeOnOffer: an offer of control shows one notification,
// which names no token; a take, a hand back or a decline shows none.
func TestDesktopNoticeOnOffer(t *testing.T) {
	ctl := control.New(nil)
	got := make(chan string, 4)
	work := desktopNotices(ctl, func(_ context.Context, title, body string) bool {
		got <- title + ": " + body
		return true
	})
	wctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- work(wctx) }()
	stop := func() { cancel(); <-done }
	defer cancel()
	ctl.RequestUser("pay", nil)
	select {
	case n := <-got:
		if n == "" {
			t.Error("an empty notification")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notification within 10 s of an offer")
	}
	ctx := t.Context()
	if err := ctl.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ctl.User().HandBack(ctx); err != nil {
		t.Fatal(err)
	}
	ctl.RequestUser("again", nil)
	if err := ctl.User().Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	stop() // waits for every event to be handled or dropped
	if n := len(got); n > 1 {
		t.Errorf("%d more notifications, want one for the second offer at most", n)
	}
}
