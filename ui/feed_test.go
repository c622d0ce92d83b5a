package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// TestFeedFromControlEvents: each of control's events, typed, becomes the
// feed line the User reads, in words with no offer id, no return count
// and no holder codes, and the same line whether the TUI reads the event
// itself or the audit log's entry for it.
func TestFeedFromControlEvents(t *testing.T) {
	at := time.Date(2026, 12, 5, 9, 30, 0, 0, time.UTC)
	offer := &control.Offer{ID: "offer-7", Reason: "The airline asks you (offer-3) to check in", At: at}
	cases := []struct {
		name string
		e    control.Event
		want feedLine
	}{
		{"offered", control.Event{Time: at, Kind: control.Offered, From: spec.ControllerAgent, To: spec.ControllerAgent, Offer: offer, Epoch: 4},
			feedLine{at: at, who: "agent", what: `asked you to take control: "The airline asks you (offer-3) to check in"`, kind: "offer"}},
		{"declined", control.Event{Time: at, Kind: control.Declined, From: spec.ControllerAgent, To: spec.ControllerAgent, Offer: offer, Epoch: 4},
			feedLine{at: at, who: "user", what: "declined the offer of control", kind: "offer"}},
		{"taken on the offer", control.Event{Time: at, Kind: control.Taken, From: spec.ControllerAgent, To: spec.ControllerUser, Offer: offer, Epoch: 5},
			feedLine{at: at, who: "user", what: "took control; the browser is the User's", kind: "control"}},
		{"taken unasked", control.Event{Time: at, Kind: control.Taken, From: spec.ControllerAgent, To: spec.ControllerUser, Epoch: 5},
			feedLine{at: at, who: "user", what: "took control; the browser is the User's", kind: "control"}},
		{"handed back", control.Event{Time: at, Kind: control.HandedBack, From: spec.ControllerUser, To: spec.ControllerAgent, Epoch: 12, UserMessage: "done"},
			feedLine{at: at, who: "user", what: "handed control back to the agent; the agent must look again", kind: "control"}},
		{"cancelled", control.Event{Time: at, Kind: control.Cancelled, From: spec.ControllerUser, To: spec.ControllerAgent, Offer: offer, Epoch: 13},
			feedLine{at: at, who: "user", what: "cancelled; control is back with the agent", kind: "control"}},
	}
	opts := cmp.AllowUnexported(feedLine{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := feedFromEvent(tc.e)
			if d := cmp.Diff(tc.want, got, opts); d != "" {
				t.Errorf("from the event (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.want, feedFromAudit(audit.EntryOf(tc.e), nil), opts); d != "" {
				t.Errorf("from its audit entry (-want +got):\n%s", d)
			}
		})
	}
}

// TestFeedKeepsWordsThatLookLikeIDs: what the model or the Company wrote
// reaches the User whole, even where it reads like an offer id or a
// return count; the feed drops only the runtime's own ids, which it never
// prints in the first place.
func TestFeedKeepsWordsThatLookLikeIDs(t *testing.T) {
	at := time.Date(2026, 12, 5, 9, 30, 0, 0, time.UTC)
	e := audit.Entry{Time: at, Event: audit.EventControl, How: "reset (return 2)", From: "user", To: "agent", By: "user"}
	got := feedFromAudit(e, nil)
	if !strings.Contains(got.what, "(reset (return 2))") {
		t.Errorf("a control line of an unknown kind lost its words: %q", got.what)
	}
}
