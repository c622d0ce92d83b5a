package injector_test

import (
	"context"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// BenchmarkSetController is the time from a change of control to every
// Company frame of the check-in page (top and pay.airline.test) reading it.
func BenchmarkSetController(b *testing.B) {
	ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute) // the whole benchmark
	defer cancel()
	site, p, in := setup(b, ctx)
	if _, err := p.Navigate(ctx, testsite.CheckInURL()); err != nil {
		b.Fatal(err)
	}
	if _, err := site.WaitFrameReport(ctx, func(f testsite.FrameReport) bool { return f.Host == testsite.PayHost }); err != nil {
		b.Fatalf("waiting for the pay.airline.test frame to report its load: %v", err)
	}
	values := []spec.Controller{spec.ControllerUser, spec.ControllerAgent}
	i := 0
	for b.Loop() {
		if err := in.Set(ctx, values[i%2]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkSetControllerThreeTabs is BenchmarkSetController with three
// tabs open, each on the check-in page with its Company iframe: the time
// until every Company frame of every tab reads the new controller.
func BenchmarkSetControllerThreeTabs(b *testing.B) {
	ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute) // the whole benchmark
	defer cancel()
	_, p, in := setup(b, ctx)
	if _, err := p.Navigate(ctx, testsite.CheckInURL()); err != nil {
		b.Fatal(err)
	}
	for range 2 {
		if _, _, err := p.Tabs().New(ctx, testsite.CheckInURL()); err != nil {
			b.Fatal(err)
		}
	}
	for _, tab := range p.Tabs().List(ctx) {
		for len(tab.Page.Frames()) < 2 {
			select {
			case <-ctx.Done():
				b.Fatalf("waiting for the Company iframe of tab %d: %v", tab.Index, ctx.Err())
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	values := []spec.Controller{spec.ControllerUser, spec.ControllerAgent}
	i := 0
	for b.Loop() {
		if err := in.Set(ctx, values[i%2]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
