package ui

import (
	"context"
	_ "embed"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/spec"
)

// The step during the User's turn: the element the offer is about is found
// on the agent's page just before the take (where the agent last saw it),
// then followed while the User holds control, so every viewer outlines it
// where it is now: on the phone's layout, scrolled, moved by the page.

//go:embed page/pinstep.js
var pinStepJS string

//go:embed page/stepbox.js
var stepBoxJS string

// pinWait bounds the look for the step before a take: a busy page must
// not hold up the User's take (the outline is then left out).
const pinWait = 300 * time.Millisecond

// stepPoll is how often the step is looked for when no frame came (a
// frame, a repaint, makes it look at once).
const stepPoll = 250 * time.Millisecond

// stepMsg tells a viewer where the step is during the User's turn; Box is
// absent when it is not on screen.
type stepMsg struct {
	Type string  `json:"type"` // "step"
	Box  *boxMsg `json:"box,omitempty"`
}

// pinStep finds the open offer's step on p, before a take. It reports
// whether there is one to follow.
func (l *Live) pinStep(ctx context.Context, p *browser.Page) bool {
	st := l.ctl.Status()
	if p == nil || st.Controller != spec.ControllerAgent || st.Offer == nil || st.Offer.Step == nil || st.Offer.Step.Box == nil {
		return false
	}
	b := st.Offer.Step.Box
	ctx, cancel := context.WithTimeout(ctx, pinWait)
	defer cancel()
	var ok bool
	if err := p.MainFrame().Call(ctx, browser.UtilityWorld, pinStepJS, &ok, b.X, b.Y, b.Width, b.Height); err != nil {
		l.log.Debug("live view could not find the step", "err", err)
		return false
	}
	return ok
}

// followStep tells every viewer where the step is on p, after each frame
// (or every stepPoll), until the User's turn of epoch ends or the shown
// page changes; then the outline goes. gen is the follower's generation:
// once a later take started another follower, this one, which may notice
// its turn's end only a stepPoll late, changes nothing.
func (l *Live) followStep(ctx context.Context, p *browser.Page, epoch, gen uint64) {
	defer l.setStep(gen, nil)
	every := stepPoll
	if l.stepEvery > 0 {
		every = l.stepEvery
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	var last *boxMsg
	first := true
	for {
		st := l.ctl.Status()
		if st.Controller != spec.ControllerUser || st.Epoch != epoch || l.page() != p {
			return
		}
		var box *boxMsg
		cctx, cancel := context.WithTimeout(ctx, actionTimeout)
		err := p.MainFrame().Call(cctx, browser.UtilityWorld, stepBoxJS, &box)
		cancel()
		if err == nil && (first || !sameBox(box, last)) {
			l.setStep(gen, box)
			last, first = box, false
		}
		select {
		case <-l.framed:
		case <-tick.C:
		case <-ctx.Done():
			return
		}
	}
}

func sameBox(a, b *boxMsg) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// setStep records where the step is and sends it to every viewer, when
// gen is the latest follower.
func (l *Live) setStep(gen uint64, box *boxMsg) {
	st := l.ctl.Status()
	l.mu.Lock()
	if gen != l.stepGen {
		l.mu.Unlock()
		return
	}
	l.step = box
	cs := make([]*client, 0, len(l.clients))
	for c := range l.clients {
		if l.proofOfLocked(c, st) != nil { // where the step is on the page: only for a proved view
			cs = append(cs, c)
		}
	}
	l.mu.Unlock()
	for _, c := range cs {
		c.queue(stepMsg{Type: "step", Box: box})
	}
}

// followAfterTake follows the step on p during the User's turn that a
// take just began, when pinStep found it before the take.
func (l *Live) followAfterTake(p *browser.Page, pinned bool) {
	if !pinned {
		return
	}
	st := l.ctl.Status()
	if st.Controller != spec.ControllerUser {
		return
	}
	epoch := st.Epoch
	l.mu.Lock()
	l.stepGen++
	gen := l.stepGen
	l.mu.Unlock()
	l.wg.Go(func() { l.followStep(l.ctx, p, epoch, gen) })
}
