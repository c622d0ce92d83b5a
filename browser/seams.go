package browser

import (
	"context"

	"github.com/poppy-browser/poppy-browser/browser/internal/seam"
)

// The test seams browsertest reaches through package seam, so that they are
// not part of this package's API (see package seam for why).
func init() {
	seam.SetViewport = func(ctx context.Context, p any, width, height int) error {
		return p.(*Page).setViewport(ctx, width, height)
	}
	seam.WindowClick = func(ctx context.Context, p any, x, y float64) error {
		return p.(*Page).windowClick(ctx, x, y)
	}
	seam.WatchLog = func(p any, fn func(seam.LogLine)) (stop func()) {
		return p.(*Page).watchLog(fn)
	}
	seam.ProfileDir = func(b any) string { return b.(*Browser).profileDir() }
	seam.DebuggerPauses = func(b any) int64 { return b.(*Browser).pauses.Load() }
}
