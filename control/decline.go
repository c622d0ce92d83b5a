package control

import (
	"context"
	"errors"
	"fmt"

	"github.com/poppy-browser/poppy-browser/spec"
)

// ErrOfferNotOpen is returned by [User.DeclineOffer] when the offer it
// names is not the open one (answered, replaced or withdrawn), or the User
// already holds control.
var ErrOfferNotOpen = errors.New("the offer is not open")

// DeclineOffer declines the open offer id for the User, who said no to it
// in one of their channels (an MCP client's URL elicitation): as
// [User.Cancel] before a take, but only that offer: a newer offer, or a
// turn the User took, is left alone ([ErrOfferNotOpen]).
func (u *User) DeclineOffer(ctx context.Context, id, message string) error {
	c := u.c
	message = CleanUserMessage(message)
	if err := c.lock(ctx); err != nil {
		return fmt.Errorf("declining the offer: %w", err)
	}
	defer c.unlock()
	c.mu.Lock()
	open := c.st.Controller == spec.ControllerAgent && c.st.Offer != nil && c.st.Offer.ID == id
	c.mu.Unlock()
	// The holder lock is held: no take runs meanwhile; a newer offer
	// (RequestUser) is checked for again under c.mu.
	if !open || !c.declineOfferID(id, message) {
		return fmt.Errorf("declining the offer: %w", ErrOfferNotOpen)
	}
	return nil
}

// declineOfferID clears the open offer id (any open offer when id is
// empty) while the agent holds control, checked under the same lock that
// clears it, and reports whether there was one.
func (c *Control) declineOfferID(id, message string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st.Offer == nil || id != "" && c.st.Offer.ID != id {
		return false
	}
	now := c.nowLocked()
	offer := c.st.Offer
	c.st.Offer = nil
	c.st.Declined = &Decline{Offer: offer.ID, At: now}
	c.st.UserMessage = message
	c.publishLocked(Event{
		Time: now, Kind: Declined, From: c.st.Controller, To: c.st.Controller,
		Offer: offer, Epoch: c.st.Epoch, UserMessage: message,
	})
	c.logger.Info("offer declined", "offer", offer.ID)
	return true
}
