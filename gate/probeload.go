package gate

import (
	"context"
	_ "embed"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
)

// What the probe view does to a checker's page besides its probes: loads
// it and waits for it to settle. Neither is an agent's action, so neither
// passes the gate's sequence or waits for another page's probe: the
// checker holds the turn it wants (AsAgent, AsUser) around them.

// Load navigates page, one of the checker's own, to url: a probe's fresh
// load. It returns the browser's answer (the status, the URL it landed on).
func (p *Prober) Load(ctx context.Context, page *browser.Page, url string) (browser.NavResult, error) {
	return page.Navigate(ctx, url)
}

// settleJS waits in a frame's event loop until its document has settled
// (see settle.js); its arguments are the quiet, the longest wait and the
// gap, in milliseconds.
//
//go:embed settle.js
var settleJS string

// Settling is what a wait for a frame's document to settle saw.
type Settling struct {
	Settled bool // quiet, its timers on time, for the quiet asked
	Changed bool // a DOM change, a finished resource, a submit or formdata event ended the wait
	// Late is how late the frame's timers fired meanwhile: time the page
	// did not run (a renderer starved on a loaded machine).
	Late time.Duration
}

// Settle waits in frame f's event loop until its document has been quiet
// for quiet, with no change the marks watcher sees and its timers firing
// no more than gap late, or for at most wait. A document without the
// marks watcher counts as settled. It gives no input. An error is a frame
// gone or replaced.
func (p *Prober) Settle(ctx context.Context, f browser.Frame, quiet, wait, gap time.Duration) (Settling, error) {
	var res struct {
		Settled bool    `json:"settled"`
		Changed bool    `json:"changed"`
		Late    float64 `json:"late"`
	}
	if err := f.Call(ctx, marks.World, settleJS, &res, quiet.Milliseconds(), wait.Milliseconds(), gap.Milliseconds()); err != nil {
		return Settling{}, err
	}
	return Settling{Settled: res.Settled, Changed: res.Changed, Late: time.Duration(res.Late * float64(time.Millisecond))}, nil
}
