package supervisor

import (
	"context"
	"errors"

	"github.com/poppy-browser/poppy-browser/browser"
)

// What package check needs of the runtime beside the gate: a page of its
// own to probe, the requests of its frames, the browser's end, and how
// often a page read navigator.poppy. The runtime hands out no browser and
// no injector: the agent's one way to the page is the gate, and check's
// input goes through the gate's probe mode (gate.Prober); these only open
// a page and observe it.

// errNoBrowser is what the methods below answer before Start or while no
// browser is attached.
var errNoBrowser = errors.New("no browser attached")

// NewPage opens a page of its own (a new browser context) in the runtime's
// browser, for check's probes. The caller closes it.
func (s *Supervisor) NewPage(ctx context.Context) (*browser.Page, error) {
	b := s.srv.currentBrowser()
	if b == nil {
		return nil, errNoBrowser
	}
	return b.NewPage(ctx)
}

// ObserveRequests calls fn with every request the browser's pages send,
// until stop is called (see [browser.Browser.ObserveRequests]).
func (s *Supervisor) ObserveRequests(ctx context.Context, fn browser.RequestObserver) (stop func(), err error) {
	b := s.srv.currentBrowser()
	if b == nil {
		return nil, errNoBrowser
	}
	return b.ObserveRequests(ctx, fn)
}

// Crashed is closed when the browser has gone away; nil (never ready)
// while none is attached.
func (s *Supervisor) Crashed() <-chan struct{} {
	b := s.srv.currentBrowser()
	if b == nil {
		return nil
	}
	return b.Crashed()
}

// ControllerReads is how often the scripts of frame f read
// navigator.poppy.controller (package injector's Reads).
func (s *Supervisor) ControllerReads(ctx context.Context, f browser.Frame) (int, error) {
	if s.sess == nil || s.sess.injector == nil {
		return 0, errNoBrowser
	}
	return s.sess.injector.Reads(ctx, f)
}
