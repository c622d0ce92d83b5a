package main

import (
	"testing"

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
