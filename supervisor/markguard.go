package supervisor

import (
	"context"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
)

// markGuard stands down the marks script's guard in a frame, for the
// Session's current control epoch (the take's).
type markGuard struct{ ss *Session }

func (g markGuard) StandDown(ctx context.Context, f browser.Frame) error {
	return marks.StandDown(ctx, f, g.ss.control.Status().Epoch)
}

// EndNewDocuments ends the gate's window in which new documents arm the
// guard at their start (gate.EndNewDocuments), for the take's epoch.
func (g markGuard) EndNewDocuments(ctx context.Context) error {
	if g.ss.gate == nil {
		return nil
	}
	return g.ss.gate.EndNewDocuments(ctx, g.ss.control.Status().Epoch)
}

// ResumeNewDocuments gives the gate's window back after a take that failed
// (gate.ResumeNewDocuments).
func (g markGuard) ResumeNewDocuments() {
	if g.ss.gate != nil {
		g.ss.gate.ResumeNewDocuments(g.ss.control.Status().Epoch)
	}
}
