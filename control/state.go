package control

import (
	"time"

	"github.com/poppy-browser/poppy-browser/spec"
)

// How is how the User gave control back, in [Return.How]: the word a
// status reports (browser_control_status' last_return.how).
type How string

// How the User gave control back.
const (
	HowHandedBack How = "handed_back"
	HowCancelled  How = "cancelled"
)

// Step is the marked step an offer is about. Every field is optional.
type Step struct {
	Ref  string `json:"ref,omitempty"`  // element ref of the marked step, e.g. "e12"
	Kind string `json:"kind,omitempty"` // "interaction" or "submission"
	Text string `json:"text,omitempty"` // what the page says about it (Company content)
	// Box is where the element was in the top frame's viewport (CSS
	// pixels) when the agent last read the page, for the User's live view
	// to outline it; nil when unknown (another frame). Not part of the
	// agent's results.
	Box *Box `json:"-"`
}

// Box is a rectangle in a viewport, CSS pixels.
type Box struct{ X, Y, Width, Height float64 }

// Offer is the agent's offer of control to the User.
type Offer struct {
	ID     string    `json:"id"`
	Reason string    `json:"reason"`
	Step   *Step     `json:"step,omitempty"`
	At     time.Time `json:"at"`
}

// Return records how the User last gave control back.
type Return struct {
	How How       `json:"how"` // HowHandedBack or HowCancelled
	At  time.Time `json:"at"`
}

// Decline records the User's most recent declined offer.
type Decline struct {
	Offer string    `json:"offer"` // the offer's ID
	At    time.Time `json:"at"`
}

// Status is a snapshot of the state. Its pointers are copies; changing them
// changes nothing in the [Control].
type Status struct {
	Controller spec.Controller
	// Offer is the open offer, if any. It stays open while the User holds
	// control and is cleared when the User hands back or cancels.
	Offer *Offer
	// LastReturn is the User's most recent hand back or cancel. A declined
	// offer is none: the User never held control.
	LastReturn *Return
	// Declined is the offer the User declined, until the agent raises a
	// new one.
	Declined *Decline
	// UserMessage is what the User told the agent when they last handed
	// back, cancelled or declined (cleaned, see [CleanUserMessage]); ""
	// when they said nothing. A new offer or a take clears it.
	UserMessage string
	// Viewers is how many of the User's live views are connected (see
	// [Control.SetViewers]).
	Viewers int
	// MustReobserve is set when the User returns control and cleared by
	// [Control.Observed]: the agent must look at the page again first.
	MustReobserve bool
	// Epoch counts the User's returns of control. Element refs from an older
	// epoch are stale. (Package agent combines it with its own page epochs.)
	Epoch uint64
	// Device is the screen the User holds control on, while they hold it
	// and took it on one ([User.TakeOn], [User.Resize]); nil otherwise.
	Device *Device
}

// Device is the size of the User's screen: CSS pixels, device pixel
// ratio, and whether it is a touch screen or a phone.
type Device struct {
	Width  int
	Height int
	Scale  float64
	Mobile bool
	Touch  bool
}
