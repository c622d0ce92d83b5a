package control

import (
	"errors"
	"testing"

	"github.com/poppy-browser/poppy-browser/spec"
)

// TestDeclineOffer: the User's decline in another channel declines only
// the offer it names, and only before a take; the agent keeps control and
// reads declined with the User's words.
func TestDeclineOffer(t *testing.T) {
	ctx := t.Context()
	c := New(nil)
	first := c.RequestUser("check in", nil)
	second := c.RequestUser("pay", nil)
	if err := c.User().DeclineOffer(ctx, first.ID, ""); !errors.Is(err, ErrOfferNotOpen) {
		t.Errorf("declining a replaced offer: %v", err)
	}
	if st := c.Status(); st.Offer == nil || st.Offer.ID != second.ID {
		t.Fatalf("the open offer changed: %+v", st)
	}
	if err := c.User().DeclineOffer(ctx, second.ID, "not now"); err != nil {
		t.Fatal(err)
	}
	st := c.Status()
	if st.Offer != nil || st.Declined == nil || st.Declined.Offer != second.ID || st.UserMessage != "not now" || st.Controller != spec.ControllerAgent {
		t.Errorf("after the decline: %+v", st)
	}
	third := c.RequestUser("sign", nil)
	if err := c.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.User().DeclineOffer(ctx, third.ID, ""); !errors.Is(err, ErrOfferNotOpen) {
		t.Errorf("declining an offer the User took: %v", err)
	}
	if c.Holder() != spec.ControllerUser {
		t.Error("a decline ended the User's turn")
	}
}
