package browser

import (
	"bytes"
	"image"
	"image/jpeg"
	"testing"
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
