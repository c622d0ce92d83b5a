package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/spec"
)

// ControlLogger is the logger name of the notifications [NotifyControl]
// sends.
const ControlLogger = "poppy-browser/control"

// ControlNotice is the data of a control notification: what changed, who
// holds the browser now, and one sentence a client can show or a model can
// act on. It never holds page text other than the offer's step, which the
// agent itself reported.
type ControlNotice struct {
	Event      string          `json:"event"` // "offer", "offer_declined", "control"
	Controller spec.Controller `json:"controller"`
	How        string          `json:"how,omitempty"` // take, handed_back, cancelled, declined
	Offer      *control.Offer  `json:"offer,omitempty"`
	Epoch      uint64          `json:"epoch"`
	Message    string          `json:"message"`
	// UserMessage is the User's own words to the agent on a hand back,
	// cancel or decline.
	UserMessage string `json:"user_message,omitempty"`
	// Link is the User's single-use link to the live view for this offer,
	// and LinkExpires when it stops working: for the client to pass to the
	// User, never to the model. Only on an offer, only when the runtime
	// mints links ([OfferLinker]).
	Link        string     `json:"link,omitempty"`
	LinkExpires *time.Time `json:"link_expires,omitempty"`
}

// OfferLinker is a [Runtime] that mints the User's link for an offer (the
// supervisor's Session). The link reaches the client in the offer's
// notification only.
type OfferLinker interface {
	OfferLinkURL(offerID string) (url string, expires time.Time, err error)
}

// NotifyControl tells every client of srv when control changes, until ctx
// ends: each offer, take, hand back and cancel becomes an MCP logging
// notification (notifications/message, logger [ControlLogger], level
// "notice", data a [ControlNotice]). A client receives them once it has set
// a logging level (logging/setLevel "notice" or lower), as MCP logging
// requires. It blocks; run it in a goroutine owned by the caller.
func NotifyControl(ctx context.Context, srv *mcp.Server, ctl gate.Controls) {
	forEachNotice(ctx, ctl, func(n ControlNotice) {
		for ss := range srv.Sessions() {
			// A session that has gone away only loses its notice.
			_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: "notice", Logger: ControlLogger, Data: n})
		}
	})
}

// watchSession is NotifyControl for one session and its own control
// state (a [Server] with a runtime per session): it subscribes before it
// returns, so that no change after the runtime is handed to the session's
// calls is missed, and sends until ctx ends or stop is called. An offer's
// notice carries the User's link when rt mints them ([OfferLinker]).
func watchSession(ctx context.Context, ss *mcp.ServerSession, rt Runtime) (stop func()) {
	linker, _ := rt.(OfferLinker)
	return control.Watch(ctx, rt.Gate().Control(), func(e control.Event) {
		n := noticeFor(e)
		if linker != nil && e.Kind == control.Offered && n.Offer != nil {
			if u, exp, err := linker.OfferLinkURL(n.Offer.ID); err == nil {
				n.Link, n.LinkExpires = u, &exp
			}
		}
		_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: "notice", Logger: ControlLogger, Data: n})
	})
}

// forEachNotice calls send with the notice of every control change until
// ctx ends.
func forEachNotice(ctx context.Context, ctl gate.Controls, send func(ControlNotice)) {
	stop := control.Watch(ctx, ctl, func(e control.Event) { send(noticeFor(e)) })
	<-ctx.Done()
	stop()
}

// noticeFor is the notice of one control event, in the notification's
// words (event "offer", "offer_declined" or "control"; how "take",
// "handed_back", "cancelled" or "declined").
func noticeFor(e control.Event) ControlNotice {
	n := ControlNotice{Controller: e.To, Offer: e.Offer, Epoch: e.Epoch, UserMessage: e.UserMessage}
	switch e.Kind {
	case control.Declined:
		n.Event, n.How = "offer_declined", "declined"
		n.Message = "The User declined the offer of control. You still hold the browser; the step stays undone."
	case control.Offered:
		n.Event = "offer"
		n.Message = "Control of the browser is offered to the User; they take it in their own time. Continue other work."
	case control.Taken:
		n.Event, n.How = "control", "take"
		n.Message = "The User took control of the browser. Every browser action is refused with user_has_control until they hand it back; do not wait on them, continue other work or call browser_wait_for_control."
	case control.HandedBack:
		n.Event, n.How = "control", "handed_back"
		n.Message = fmt.Sprintf("The User handed control back (epoch %d). Every old ref is stale: take a new snapshot before acting.", e.Epoch)
	case control.Cancelled:
		n.Event, n.How = "control", "cancelled"
		n.Message = fmt.Sprintf("The User cancelled and control is back with you (epoch %d). Do not retry the step for them; take a new snapshot and tell the User.", e.Epoch)
	}
	return n
}
