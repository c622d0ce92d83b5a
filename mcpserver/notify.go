package mcpserver

import (
	"context"
	"fmt"

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
	// ControlEpoch is Epoch under the name the audit log gives it: the
	// count of returns of control, not the page epoch of refs
	// (page.epoch), which a snapshot shows.
	ControlEpoch uint64 `json:"control_epoch"`
	Message      string `json:"message"`
	// UserMessage is the User's own words to the agent on a hand back,
	// cancel or decline.
	UserMessage string `json:"user_message,omitempty"`
	// A notice never carries a link to the live view: notifications are
	// the agent's software, and some clients put them in the model's
	// context. Only the User's own channels (the terminal UI, --on-offer,
	// the live-link command) get a link that can take the User's turn
	// (the third rule of docs/architecture.md).
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
// calls is missed, and sends until ctx ends or stop is called. A notice
// never carries a link that takes control: that goes only to the User.
func watchSession(ctx context.Context, ss *mcp.ServerSession, rt Runtime) (stop func()) {
	return control.Watch(ctx, rt.Gate().Control(), func(e control.Event) {
		n := noticeFor(e)
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
	n := ControlNotice{Controller: e.To, Offer: e.Offer, Epoch: e.Epoch, ControlEpoch: e.Epoch, UserMessage: e.UserMessage}
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
		n.Message = fmt.Sprintf("The User handed control back (return %d of control). Every old ref is stale: take a new snapshot before acting.", e.Epoch)
	case control.Cancelled:
		n.Event, n.How = "control", "cancelled"
		n.Message = fmt.Sprintf("The User cancelled and control is back with you (return %d of control). Do not retry the step for them; take a new snapshot and tell the User.", e.Epoch)
	}
	return n
}
