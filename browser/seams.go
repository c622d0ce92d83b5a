package browser

import (
	"context"

	"github.com/poppy-browser/poppy-browser/browser/internal/seam"
)

// Seam hands browsertest what tests need of the page beyond this API
// (see package seam for why it is kept out of it). Only a package that may
// import browser/internal/seam can write the key.
func (p *Page) Seam(seam.Key) seam.Page { return pageSeam{p} }

// Seam hands browsertest what tests need of the browser beyond this API.
func (b *Browser) Seam(seam.Key) seam.Browser { return browserSeam{b} }

// pageSeam is a page's [seam.Page].
type pageSeam struct{ p *Page }

func (s pageSeam) SetViewport(ctx context.Context, width, height int) error {
	return s.p.setViewport(ctx, width, height)
}

func (s pageSeam) WindowClick(ctx context.Context, x, y float64) error {
	return s.p.windowClick(ctx, x, y)
}

func (s pageSeam) WatchLog(fn func(seam.LogLine)) (stop func()) { return s.p.watchLog(fn) }

// browserSeam is a browser's [seam.Browser].
type browserSeam struct{ b *Browser }

func (s browserSeam) ProfileDir() string    { return s.b.profileDir() }
func (s browserSeam) DebuggerPauses() int64 { return s.b.pauses.Load() }
