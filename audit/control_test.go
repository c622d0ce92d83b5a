package audit

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestEntryOf: each of control's event kinds is written in the audit log's
// words (docs/reference.md, "Audit log"): offers by the agent, everything else by
// the User; from and to only on a change of holder, where the offer's
// reason is left out; the take's screen and the User's message as given.
func TestEntryOf(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	agent, user := spec.ControllerAgent, spec.ControllerUser
	offer := &control.Offer{ID: "offer-2", Reason: "check in yourself", Step: &control.Step{Ref: "e12", Text: "Check in"}, At: at}
	phone := &control.Device{Width: 390, Height: 844, Scale: 3, Mobile: true, Touch: true}
	for _, tc := range []struct {
		name string
		in   control.Event
		want Entry
	}{
		{"offered", control.Event{Time: at, Kind: control.Offered, From: agent, To: agent, Offer: offer, Epoch: 1},
			Entry{Time: at, Event: EventOffer, By: ByAgent, Offer: "offer-2", Reason: "check in yourself", Ref: "e12", ControlEpoch: 1}},
		{"declined", control.Event{Time: at, Kind: control.Declined, From: agent, To: agent, Offer: offer, Epoch: 1, UserMessage: "not now"},
			Entry{Time: at, Event: EventOffer, How: HowDeclined, By: ByUser, Offer: "offer-2", Reason: "check in yourself", Ref: "e12", ControlEpoch: 1, UserMessage: "not now"}},
		{"taken on a phone", control.Event{Time: at, Kind: control.Taken, From: agent, To: user, Offer: offer, Epoch: 1, Device: phone},
			Entry{Time: at, Event: EventControl, How: HowTake, By: ByUser, From: "agent", To: "user", Offer: "offer-2", Ref: "e12", ControlEpoch: 1,
				Device: &Device{Width: 390, Height: 844, Scale: 3, Mobile: true, Touch: true}}},
		{"handed back", control.Event{Time: at, Kind: control.HandedBack, From: user, To: agent, Epoch: 2, UserMessage: "done"},
			Entry{Time: at, Event: EventControl, How: HowHandedBack, By: ByUser, From: "user", To: "agent", ControlEpoch: 2, UserMessage: "done"}},
		{"cancelled", control.Event{Time: at, Kind: control.Cancelled, From: user, To: agent, Offer: offer, Epoch: 2},
			Entry{Time: at, Event: EventControl, How: HowCancelled, By: ByUser, From: "user", To: "agent", Offer: "offer-2", Ref: "e12", ControlEpoch: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, EntryOf(tc.in)); diff != "" {
				t.Errorf("EntryOf (-want +got):\n%s", diff)
			}
		})
	}
}
