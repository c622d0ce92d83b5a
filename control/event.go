package control

import (
	"strconv"
	"time"

	"github.com/poppy-browser/poppy-browser/spec"
)

// Kind is what an [Event] reports, in control's own words. Switch on it:
//
//	switch e.Kind {
//	case control.Offered:    // the agent offered control (e.Offer)
//	case control.Declined:   // the User said no; the agent keeps control
//	case control.Taken:      // the User holds control
//	case control.HandedBack, control.Cancelled: // control is back with the agent
//	}
type Kind uint8

// The kinds of [Event], one for each thing that happens to control.
const (
	// Offered: the agent offered control to the User ([Control.RequestUser]).
	// The holder does not change.
	Offered Kind = iota + 1
	// Declined: the User declined the open offer ([User.Cancel] while the
	// agent holds control). The holder does not change.
	Declined
	// Taken: the User took control ([User.Take], [User.TakeOn]).
	Taken
	// HandedBack: the User handed control back ([User.HandBack]); the
	// epoch went up.
	HandedBack
	// Cancelled: the User cancelled their control ([User.Cancel]); the
	// epoch went up.
	Cancelled
)

var kindNames = [...]string{Offered: "offered", Declined: "declined", Taken: "taken", HandedBack: "handed back", Cancelled: "cancelled"}

// String is the kind in words ("offered", "handed back"), for logs and
// test failures; it is not a wire format (package audit and the MCP
// server keep their own words).
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// ChangesHolder reports whether the kind is a change of holder: [Taken],
// [HandedBack] or [Cancelled].
func (k Kind) ChangesHolder() bool { return k == Taken || k == HandedBack || k == Cancelled }

// returnHow is the word of [Return.How] for a return of control.
func (k Kind) returnHow() How {
	if k == Cancelled {
		return HowCancelled
	}
	return HowHandedBack
}

// Event is one thing that happened to control, delivered in order to every
// [Control.Subscribe]r and [Watch] function, and to [Options.Audit].
type Event struct {
	Time time.Time
	Kind Kind
	// From and To are the holder before and after; equal for [Offered]
	// and [Declined].
	From, To spec.Controller
	// Offer is the offer made, declined or taken, or open when control
	// came back (nil if none was open).
	Offer *Offer
	// Epoch is the control epoch after the event (see [Status.Epoch]).
	Epoch uint64
	// Device is the User's screen on a [Taken] made on one; nil otherwise.
	Device *Device
	// Proof is how the User's presence was proved, on a [Taken]; nil
	// otherwise.
	Proof *Proof
	// UserMessage is the User's message to the agent on a [HandedBack],
	// [Cancelled] or [Declined] (cleaned); "" for none.
	UserMessage string
}
