package audit

import (
	"time"

	"github.com/poppy-browser/poppy-browser/control"
)

// RecordControl records one of control's events: an offer line
// ([EventOffer]: made, or declined by the User) or a control line
// ([EventControl]: a take, hand back or cancel), as [EntryOf] writes it.
// With it a *Log is a [control.Recorder].
func (a *Log) RecordControl(e control.Event) error {
	return a.Record(EntryOf(e))
}

// RecordFailure records that op failed with err at t (a step of a
// hand-over): an [EventError] line "op: err". err must carry no value the
// User typed.
func (a *Log) RecordFailure(t time.Time, op string, err error) error {
	return a.Record(Entry{Time: t, Event: EventError, Message: op + ": " + err.Error()})
}

// EntryOf is the audit line of one of control's events, in the audit
// log's words (docs/reference.md): event "offer" with how "" (made, by the
// agent) or "declined" (by the User); event "control" with how "take",
// "handed_back" or "cancelled" (by the User), from and to the holders.
// Offer lines carry the model's reason and the marked element's ref, never
// page text.
func EntryOf(e control.Event) Entry {
	a := Entry{Time: e.Time, ControlEpoch: e.Epoch, UserMessage: e.UserMessage, By: ByUser}
	switch e.Kind {
	case control.Offered:
		a.Event, a.By = EventOffer, ByAgent
	case control.Declined:
		a.Event, a.How = EventOffer, HowDeclined
	case control.Taken:
		a.Event, a.How = EventControl, HowTake
	case control.HandedBack:
		a.Event, a.How = EventControl, HowHandedBack
	case control.Cancelled:
		a.Event, a.How = EventControl, HowCancelled
	}
	if d := e.Device; d != nil {
		a.Device = &Device{Width: d.Width, Height: d.Height, Scale: d.Scale, Mobile: d.Mobile, Touch: d.Touch}
	}
	if p := e.Proof; p != nil {
		a.Proof = &Proof{Kind: string(p.Kind), Credential: p.Credential, UserVerified: p.UserVerified, Subject: p.Subject}
	}
	if e.Offer != nil {
		a.Offer = e.Offer.ID
		a.Reason = e.Offer.Reason
		if e.Offer.Step != nil {
			a.Ref = e.Offer.Step.Ref
		}
	}
	if e.Kind.ChangesHolder() {
		a.From, a.To = string(e.From), string(e.To)
		a.Reason = ""
	}
	return a
}

// ControlKind is the kind of control's event an offer or control line
// records, the reverse of [EntryOf]; false for any other line, or a how
// this version does not know.
func (e Entry) ControlKind() (control.Kind, bool) {
	switch {
	case e.Event == EventOffer && (e.How == HowDeclined || e.How == HowCancelled): // cancelled: logs before "declined"
		return control.Declined, true
	case e.Event == EventOffer:
		return control.Offered, true
	case e.Event == EventControl && e.How == HowTake:
		return control.Taken, true
	case e.Event == EventControl && e.How == HowHandedBack:
		return control.HandedBack, true
	case e.Event == EventControl && e.How == HowCancelled:
		return control.Cancelled, true
	}
	return 0, false
}
