package audit

import (
	"testing"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestControlKindReversesEntryOf: the line EntryOf writes for each of
// control's events reads back as that event's kind; any other line, or a
// how this version does not know, is no event of control.
func TestControlKindReversesEntryOf(t *testing.T) {
	offer := &control.Offer{ID: "offer-1", Reason: "check in"}
	for _, k := range []control.Kind{control.Offered, control.Declined, control.Taken, control.HandedBack, control.Cancelled} {
		t.Run(k.String(), func(t *testing.T) {
			e := control.Event{Kind: k, From: spec.ControllerAgent, To: spec.ControllerUser, Offer: offer}
			got, ok := EntryOf(e).ControlKind()
			if !ok || got != k {
				t.Errorf("EntryOf(%s).ControlKind() = %v, %v; want %v, true", k, got, ok, k)
			}
		})
	}
	for _, e := range []Entry{
		{Event: EventAction, How: HowTake},
		{Event: EventControl, How: "reset"},
		{Event: EventDenied},
		{Event: EventOffer, How: HowCancelled}, // older logs wrote "cancelled" for a decline
	} {
		k, ok := e.ControlKind()
		if e.Event == EventOffer {
			if !ok || k != control.Declined {
				t.Errorf("%+v: got %v, %v; want declined", e, k, ok)
			}
			continue
		}
		if ok {
			t.Errorf("%+v: read as %v; want no event of control", e, k)
		}
	}
}
