package main

import (
	"testing"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// benchCheckIn opens the check-in page in a joined runtime.
func benchCheckIn(b *testing.B) (*demo, result) {
	ctx := b.Context()
	d := startDemo(b, ctx)
	if r := d.call(ctx, "browser_navigate", map[string]any{"url": testsite.CheckInURL()}); r.Outcome != "done" {
		b.Fatalf("navigate: %+v", r)
	}
	return d, d.snapshot(ctx)
}

// BenchmarkSnapshotCheckIn is one browser_snapshot of the check-in page
// (every frame, out-of-process ones included), over MCP.
func BenchmarkSnapshotCheckIn(b *testing.B) {
	d, _ := benchCheckIn(b)
	ctx := b.Context()
	for b.Loop() {
		d.snapshot(ctx)
	}
}

// BenchmarkGatedClick is one allowed browser_click (the gate's decision plus
// the dispatch of the click), over MCP.
func BenchmarkGatedClick(b *testing.B) {
	d, snap := benchCheckIn(b)
	ctx := b.Context()
	seat := ref(b, snap, "combobox", "Seat")
	for b.Loop() {
		if r := d.call(ctx, "browser_click", map[string]any{"ref": seat.Ref}); r.Outcome != "done" {
			b.Fatalf("click: %+v", r)
		}
	}
}

// BenchmarkDeniedClick is one refused browser_click on "Check in": the
// decision alone.
func BenchmarkDeniedClick(b *testing.B) {
	d, snap := benchCheckIn(b)
	ctx := b.Context()
	checkIn := ref(b, snap, "button", "Check in")
	for b.Loop() {
		if r := d.call(ctx, "browser_click", map[string]any{"ref": checkIn.Ref}); r.Reason != "user_step" {
			b.Fatalf("click: %+v", r)
		}
	}
}

// BenchmarkClickBuiltInPages is one allowed click through Gate.Do (check,
// the guard armed in every Company frame and tab, input, settle, disarm,
// the page state) on each of the three built-in pages of the side-by-side
// bench (bench/sidebyside): 2,400 buttons, 5,000 elements, the check-in
// form. Compare runs of two builds alternated in one sitting
// (BENCHMARKS.md).
func BenchmarkClickBuiltInPages(b *testing.B) {
	for _, pg := range []struct{ name, url, role, label string }{
		{"buttons2400", "https://" + testsite.CompanyDomain + "/fixtures/marks/buttons-2400.html", "button", "Button 30"},
		{"elements5000", "https://" + testsite.CompanyDomain + "/fixtures/marks/elements-5000.html", "button", "Order item 1"},
		{"checkin", testsite.CheckInURL(), "combobox", "Seat"},
	} {
		b.Run(pg.name, func(b *testing.B) {
			ctx := b.Context()
			d := startDemo(b, ctx)
			if r := d.call(ctx, "browser_navigate", map[string]any{"url": pg.url}); r.Outcome != "done" {
				b.Fatalf("navigate: %+v", r)
			}
			target := ref(b, d.snapshot(ctx), pg.role, pg.label)
			for b.Loop() {
				if r := d.sv.Gate().Do(ctx, gate.Click{Ref: target.Ref}); r.Outcome != spec.OutcomeDone {
					b.Fatalf("click: %+v", r)
				}
			}
		})
	}
}
