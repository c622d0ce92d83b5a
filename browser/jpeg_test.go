package browser

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"testing"

	"github.com/chromedp/cdproto/page"
)

func TestJPEGShape(t *testing.T) {
	for _, c := range []struct {
		w, h       int
		cssW, cssH float64
		want       bool
	}{
		{780, 1688, 390, 844, true},   // a phone at 2x
		{1280, 813, 1280, 813, true},  // the agent's layout at 1x
		{1600, 1016, 1280, 813, true}, // scaled to fit the bound
		{780, 495, 390, 844, false},   // the old surface, the new size
		{1280, 900, 640, 450, true},
	} {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, c.w, c.h)), nil); err != nil {
			t.Fatal(err)
		}
		if w, h := jpegSize(buf.Bytes()); w != c.w || h != c.h {
			t.Errorf("jpegSize: %dx%d, want %dx%d", w, h, c.w, c.h)
		}
		if got := sameShape(buf.Bytes(), c.cssW, c.cssH); got != c.want {
			t.Errorf("%dx%d for %vx%v CSS px: same shape %v, want %v", c.w, c.h, c.cssW, c.cssH, got, c.want)
		}
	}
	if !sameShape([]byte("not a jpeg"), 390, 844) {
		t.Error("an unreadable picture is dropped, want it passed on")
	}
}

// TestJPEGBelowScale: a picture captured at an older, smaller surface's
// size is blurry on the User's screen, whatever its shape.
func TestJPEGBelowScale(t *testing.T) {
	for _, c := range []struct {
		w, h       int
		cssW, cssH float64
		k          float64
		want       bool
	}{
		{1688, 692, 844, 346, 2, false}, // a phone in landscape at 2x
		{1280, 525, 844, 346, 2, true},  // the same page fitted into the 2x window's own surface (1280x626)
		{780, 1688, 390, 844, 2, false}, // a phone at 2x
		{390, 844, 390, 844, 2, true},   // captured before the window's move
		{1280, 813, 1280, 813, 1, false},
		{1242, 692, 1280, 713, 1, true},   // the agent's layout fitted into the phone's old surface
		{1920, 1067, 1280, 711, 2, false}, // 2x fitted into MaxFrameSide
		{1600, 889, 1280, 711, 2, true},   // below that fit
		{1920, 1069, 1280, 713, 1, false}, // sharper than the screen: shown
		{720, 1280, 360, 640, 2, false},   // a small phone at 2x
		{700, 1244, 360, 640, 2, true},    // 3% short
		{2532, 1038, 844, 346, 2, false},  // a screenshot at the emulated 3x
	} {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, c.w, c.h)), nil); err != nil {
			t.Fatal(err)
		}
		if got := belowScale(buf.Bytes(), c.cssW, c.cssH, c.k); got != c.want {
			t.Errorf("%dx%d for %vx%v CSS px on a %vx screen: below scale %v, want %v", c.w, c.h, c.cssW, c.cssH, c.k, got, c.want)
		}
	}
	if belowScale([]byte("not a jpeg"), 390, 844, 2) {
		t.Error("an unreadable picture is dropped, want it passed on")
	}
}

func TestFrameViewport(t *testing.T) {
	for _, c := range []struct {
		w, h, scale  float64
		wantW, wantH float64
	}{
		{390, 800, 1, 390, 800},                         // a phone's page at its width
		{390, 800, 390.0 / 434, 434, 800 * 434.0 / 390}, // zoomed out to fit a wider layout
		{390, 844, 390.0 / 980, 980, 844 * 980.0 / 390}, // a desktop-only page on a phone
		{1280, 813, 2, 640, 406.5},                      // zoomed in
		{1280, 813, 0, 1280, 813},                       // no scale given
	} {
		w, h := frameViewport(&page.ScreencastFrameMetadata{DeviceWidth: c.w, DeviceHeight: c.h, PageScaleFactor: c.scale})
		if math.Abs(w-c.wantW) > 1e-6 || math.Abs(h-c.wantH) > 1e-6 {
			t.Errorf("frameViewport(%vx%v at %v) = %vx%v, want %vx%v", c.w, c.h, c.scale, w, h, c.wantW, c.wantH)
		}
	}
}
