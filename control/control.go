package control

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/poppy-browser/poppy-browser/internal/queue"
	"github.com/poppy-browser/poppy-browser/spec"
)

// ErrNotHeld is returned by [User.HandBack] and [User.Cancel] when the User
// does not hold control. Nothing changes then; a User channel may treat it as
// a harmless double press.
var ErrNotHeld = errors.New("user does not hold control")

// Options configures a [Control]. A nil *Options means all defaults.
type Options struct {
	// Handover is what a change of holder does to the browser: control
	// calls its Take, Return and Resize inside the serialized transition,
	// before the change is published to Status, Holder, subscribers or the
	// audit log. If Take fails, the agent keeps control. If Return fails,
	// control still returns to the agent and the error is returned. Nil
	// means nothing changes beyond control's state (and the pages keep the
	// agent's viewport).
	Handover Handover
	// Audit receives one entry per offer, decline and change of holder, and
	// one per failed hand-over step (package audit's *Log). Nil means no
	// audit.
	Audit Recorder
	// Now is the clock. Nil means time.Now.
	Now func() time.Time
	// Logger receives debug logs. Nil means discard.
	Logger *slog.Logger
}

// Control holds the browser's controller. Create it with [New]; the zero
// value is not usable. All methods are safe for concurrent use.
type Control struct {
	handover Handover
	audit    Recorder
	now      func() time.Time
	logger   *slog.Logger
	user     *User
	parts    parts // the one-per-Control parts built on it (Bind)

	// trans serializes transitions (a one-slot semaphore, so that waiting
	// for it honours ctx). The Handover runs while it is held; mu is not.
	trans chan struct{}

	mu       sync.Mutex // guards the fields below; never held during the Handover
	st       Status
	offers   uint64        // offers raised, for IDs
	agentCh  chan struct{} // closed while the agent holds control
	subs     map[*queue.Queue[Event]]struct{}
	lastTime time.Time

	// leases are the agent's actions in flight; while taking, a take is
	// ending them and no new one starts (lease.go).
	leases      map[*lease]struct{}
	taking      bool
	leasesEnded chan struct{} // closed when the last lease ends while taking
}

// New returns a Control with the agent holding the browser, epoch 0 and no
// offer.
func New(opts *Options) *Control {
	if opts == nil {
		opts = &Options{}
	}
	c := &Control{
		handover: opts.Handover,
		audit:    opts.Audit,
		now:      opts.Now,
		logger:   opts.Logger,
		trans:    make(chan struct{}, 1),
		st:       Status{Controller: spec.ControllerAgent},
		subs:     make(map[*queue.Queue[Event]]struct{}),
		leases:   make(map[*lease]struct{}),
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	c.agentCh = make(chan struct{})
	close(c.agentCh)
	c.user = &User{c: c}
	return c
}

// Status returns a copy of the current state. It never waits for the
// Handover.
func (c *Control) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.statusLocked()
}

func (c *Control) statusLocked() Status {
	s := c.st
	s.Offer = s.Offer.clone()
	s.Device = cloneDevice(s.Device)
	if s.LastReturn != nil {
		r := *s.LastReturn
		s.LastReturn = &r
	}
	if s.Declined != nil {
		d := *s.Declined
		s.Declined = &d
	}
	return s
}

// Holder returns who holds the browser. It reads [spec.ControllerUser] only
// once the Handover's Take has succeeded, and until the state after a hand
// back or cancel is published (after its Return returned).
func (c *Control) Holder() spec.Controller {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st.Controller
}

// RequestUser raises an offer of control to the User and returns it at once;
// it never waits for the User. It replaces an older open offer. It changes no
// holder: while the User holds control, they keep it.
func (c *Control) RequestUser(reason string, step *Step) Offer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offers++
	o := &Offer{
		ID:     fmt.Sprintf("offer-%d", c.offers),
		Reason: reason,
		Step:   step.clone(),
		At:     c.nowLocked(),
	}
	c.st.Offer = o
	c.st.Declined = nil
	c.st.UserMessage = ""
	e := Event{
		Time: o.At, Kind: Offered, From: c.st.Controller, To: c.st.Controller,
		Offer: o.clone(), Epoch: c.st.Epoch,
	}
	c.publishLocked(e)
	c.logger.Debug("offer raised", "offer", o.ID, "reason", reason, "holder", string(c.st.Controller))
	return *o.clone()
}

// WaitForAgent returns the status as soon as the agent holds control, at
// once if it does, or ctx.Err() when ctx is done first. Nothing else ends the
// User's control: waiting here has no timeout of its own.
func (c *Control) WaitForAgent(ctx context.Context) (Status, error) {
	c.mu.Lock()
	ch := c.agentCh
	c.mu.Unlock()
	select {
	case <-ch:
		return c.Status(), nil
	case <-ctx.Done():
		return Status{}, ctx.Err()
	}
}

// Observed reports that the agent took a fresh snapshot of the page: it
// clears [Status.MustReobserve]. It does nothing while the User holds
// control (the flag is only set when control returns anyway).
func (c *Control) Observed() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st.Controller == spec.ControllerAgent {
		c.st.MustReobserve = false
	}
}

// ObservedAt is [Control.Observed] for a snapshot begun at epoch: it clears
// MustReobserve only if control has not returned since (the epoch is still
// current) and reports whether it did. Use it when a snapshot may race a
// hand back.
func (c *Control) ObservedAt(epoch uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st.Controller != spec.ControllerAgent || c.st.Epoch != epoch {
		return false
	}
	c.st.MustReobserve = false
	return true
}

// User returns the User's handle. Give it only to the User's channels.
func (c *Control) User() *User { return c.user }

// User is the User's side of a [Control]: the only way to change the holder.
// It is safe for concurrent use.
type User struct{ c *Control }

// Take is the terminal UI's take: the User pressed its take key, which
// is their proof of presence ([ProofTerminal]). It gives control to the
// User, with or without an open offer, and is a no-op if the User already
// holds control. If the Handover's Take fails, the agent keeps control and
// the error is returned. Only the terminal UI the User runs calls it.
func (u *User) Take(ctx context.Context) error {
	return u.TakeOn(ctx, nil, Proof{Kind: ProofTerminal})
}

// TakeOn is [User.Take] from a screen of size d (nil: the agent's own
// viewport stays), resting on proof, the verified proof of the User's
// presence ([ErrNoProof] for none): the pages are shown at d's size
// before the take is published, and the control line of the audit log
// records d and the proof.
func (u *User) TakeOn(ctx context.Context, d *Device, proof Proof) error {
	if !proof.valid() {
		return fmt.Errorf("taking control: %w", ErrNoProof)
	}
	c := u.c
	if err := c.lock(ctx); err != nil {
		return fmt.Errorf("taking control: %w", err)
	}
	defer c.unlock()
	if c.Holder() == spec.ControllerUser {
		return nil
	}
	// No agent input lands once a frame reads "user": wait for the input
	// in flight, stop a navigation.
	release, err := c.endLeases(ctx)
	if err != nil {
		return fmt.Errorf("taking control: %w", err)
	}
	defer release()
	d, err = c.handoverTake(ctx, cloneDevice(d))
	if err != nil {
		c.recordError("taking control", err)
		return fmt.Errorf("taking control: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.st.Controller = spec.ControllerUser
	c.st.Device = d
	c.st.UserMessage = ""
	c.agentCh = make(chan struct{})
	c.publishLocked(Event{
		Time: c.nowLocked(), Kind: Taken,
		From: spec.ControllerAgent, To: spec.ControllerUser,
		Offer: c.st.Offer.clone(), Epoch: c.st.Epoch, Device: cloneDevice(d),
		Proof: proof.clone(),
	})
	c.logger.Info("control changed", "holder", "user", "epoch", c.st.Epoch)
	return nil
}

// HandBack returns control to the agent: the epoch goes up, MustReobserve is
// set, LastReturn says handed_back and the offer is cleared. If the User does
// not hold control it returns [ErrNotHeld] and changes nothing. If the
// Handover's Return fails, control still returns to the agent and the
// error is returned.
func (u *User) HandBack(ctx context.Context) error {
	return u.c.release(ctx, HandedBack, "")
}

// HandBackSaying is [User.HandBack] with the User's message to the agent
// (cleaned with [CleanUserMessage]): Status.UserMessage, the event and the
// audit line carry it.
func (u *User) HandBackSaying(ctx context.Context, message string) error {
	return u.c.release(ctx, HandedBack, message)
}

// CancelSaying is [User.Cancel] with the User's message to the agent, as
// [User.HandBackSaying].
func (u *User) CancelSaying(ctx context.Context, message string) error {
	return u.c.release(ctx, Cancelled, message)
}

// Cancel returns control to the agent like [User.HandBack], with LastReturn
// cancelled. While the agent holds control and an offer is open, Cancel
// declines the offer instead: the offer is cleared and Declined names it;
// holder, epoch, MustReobserve and LastReturn stay (the User never held
// control). With neither, it returns [ErrNotHeld].
func (u *User) Cancel(ctx context.Context) error {
	return u.c.release(ctx, Cancelled, "")
}

// release returns control to the agent: how is [HandedBack] or
// [Cancelled].
func (c *Control) release(ctx context.Context, how Kind, message string) error {
	message = CleanUserMessage(message)
	op := "handing back control"
	if how == Cancelled {
		op = "cancelling control"
	}
	if err := c.lock(ctx); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer c.unlock()
	if c.Holder() == spec.ControllerAgent {
		if how == Cancelled && c.declineOfferID("", message) {
			return nil
		}
		return fmt.Errorf("%s: %w", op, ErrNotHeld)
	}
	// Holder keeps reading "user" while the pages are given back, so the
	// gate refuses agent actions until every frame reads "agent" and the
	// agent's next look is at its own layout.
	returnErr := c.handoverReturn(ctx)
	if returnErr != nil {
		c.recordError(op, returnErr)
	}
	c.mu.Lock()
	now := c.nowLocked()
	offer := c.st.Offer
	c.st.Controller = spec.ControllerAgent
	c.st.Epoch++
	c.st.MustReobserve = true
	c.st.LastReturn = &Return{How: how.returnHow(), At: now}
	c.st.Offer = nil
	c.st.Device = nil
	c.st.UserMessage = message
	close(c.agentCh)
	c.publishLocked(Event{
		Time: now, Kind: how,
		From: spec.ControllerUser, To: spec.ControllerAgent,
		Offer: offer, Epoch: c.st.Epoch, UserMessage: message,
	})
	c.logger.Info("control changed", "holder", "agent", "how", how.String(), "epoch", c.st.Epoch)
	c.mu.Unlock()
	if returnErr != nil {
		return fmt.Errorf("%s: %w", op, returnErr)
	}
	return nil
}

func (c *Control) lock(ctx context.Context) error {
	select {
	case c.trans <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Control) unlock() { <-c.trans }

// nowLocked returns the clock's time, never earlier than the last one
// handed out, so events read in order. c.mu must be held.
func (c *Control) nowLocked() time.Time {
	t := c.now()
	if t.Before(c.lastTime) {
		t = c.lastTime
	}
	c.lastTime = t
	return t
}

// recordError records a failed hand-over step. The error comes from the
// Handover and carries no User input.
func (c *Control) recordError(op string, err error) {
	if c.audit == nil {
		return
	}
	c.mu.Lock()
	now := c.nowLocked()
	c.mu.Unlock()
	if rerr := c.audit.RecordFailure(now, op, err); rerr != nil {
		c.logger.Error("audit record failed", "op", op, "err", rerr)
	}
}

func (o *Offer) clone() *Offer {
	if o == nil {
		return nil
	}
	n := *o
	n.Step = o.Step.clone()
	return &n
}

func (s *Step) clone() *Step {
	if s == nil {
		return nil
	}
	n := *s
	if s.Box != nil {
		b := *s.Box
		n.Box = &b
	}
	return &n
}
