package supervisor

import (
	"context"
	"fmt"
	"io"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/internal/desktop"
)

// notifyText is what a desktop notification says when the agent offers
// control. It names no token and no page text: notification daemons keep
// their messages in logs other programs read.
const (
	notifyTitle = "Your agent asks for you"
	notifyBody  = "It offers you control of its browser for a step that is yours. Open the live view: run poppy-browser open-live, or use its address from the agent's log."
)

// desktopNotices shows a desktop notification for each offer of control
// (a worker of the Session's). notify is desktop.Notify unless a test
// replaces it.
func desktopNotices(ctl *control.Control, notify func(ctx context.Context, title, body string) bool) worker {
	if notify == nil {
		notify = desktop.Notify
	}
	return follow(ctl, func(ctx context.Context, e control.Event) {
		if e.Kind == control.Offered {
			notify(ctx, notifyTitle, notifyBody) // best effort; bounded by package desktop
		}
	})
}

// offerAnnouncements writes one line to w for each offer of control, with
// the live view's URL (its token included: w is the User's own channel,
// never the model's); a worker of the Session's.
func offerAnnouncements(ctl *control.Control, w io.Writer, liveURL func() string) worker {
	return follow(ctl, func(_ context.Context, e control.Event) {
		if e.Kind != control.Offered || e.Offer == nil {
			return
		}
		if u := liveURL(); u != "" {
			fmt.Fprintf(w, "poppy-browser: the agent offers you control (%s); take it in the live view: %s\n", e.Offer.ID, u)
		} else {
			fmt.Fprintf(w, "poppy-browser: the agent offers you control (%s)\n", e.Offer.ID)
		}
	})
}
