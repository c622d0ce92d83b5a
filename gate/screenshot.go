package gate

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"

	"github.com/poppy-browser/poppy-browser/marks"
	"github.com/poppy-browser/poppy-browser/spec"
)

// A screenshot is read from the page's pixels, so the User's values are
// masked on the picture itself: every field a mark gives to the User is
// painted over from the scan's boxes before the picture leaves the gate.
// Nothing is written into the page.

// box is a rectangle on the full-page picture, CSS pixels.
type box struct{ x, y, w, h float64 }

// Screenshot takes a picture of the tab (the viewport), the whole page
// (FullPage) or one element (Ref). Values in the User's fields are masked;
// OutlineMarks outlines the elements that bear marks.
type Screenshot struct {
	Ref          string
	FullPage     bool
	OutlineMarks bool
}

// ScreenshotInput is browser_screenshot's input.
type ScreenshotInput struct {
	Ref          string `json:"ref,omitempty" jsonschema:"only this element"`
	FullPage     bool   `json:"full_page,omitempty"`
	OutlineMarks bool   `json:"outline_marks,omitempty" jsonschema:"outline the User's steps"`
}

var screenshotDecl = Decl[ScreenshotInput]{
	Tool:        "browser_screenshot",
	Title:       "Screenshot",
	Description: "PNG of the viewport, the page or an element; the User's fields masked.",
	User:        UserWords{Did: "looked at the page", Refused: "look at the page"},
	Notes: "an image content (PNG or JPEG) of the tab or element; values in the User's fields are " +
		"painted over; `outline_marks` outlines what the marks cover",
	ReadOnly: true,
	Build: func(in ScreenshotInput) Action {
		return Screenshot{Ref: in.Ref, FullPage: in.FullPage, OutlineMarks: in.OutlineMarks}
	},
}

func (Screenshot) Tool() string { return spec.ToolScreenshot }

func (a Screenshot) plan() plan {
	var img []byte
	return plan{
		ref: a.Ref,
		dispatch: func(ctx context.Context, st *step) error {
			var err error
			img, err = st.screenshot(ctx, a)
			return err
		},
		done: func(ctx context.Context, st *step) Result {
			res := st.done(ctx, "A picture of the page; values in the User's fields are masked.")
			if st.target != nil {
				res.Message = fmt.Sprintf("A picture of %s; values in the User's fields are masked.", st.target.ref)
			}
			res.Image, res.ImageType = img, "image/png"
			return res
		},
	}
}

// screenshot takes the picture, masks the User's fields, outlines marks
// when asked and crops it to the viewport, the element or the page.
func (st *step) screenshot(ctx context.Context, a Screenshot) ([]byte, error) {
	r := st.r
	var masks, outlines []box
	var crop *box
	add := func(f Frame, sc marks.Scan, ox, oy float64) {
		at := func(b marks.Rect) box { return box{ox + b.X, oy + b.Y, b.Width, b.Height} }
		for _, e := range sc.Elements {
			if e.UserField && e.Box.Width > 0 {
				masks = append(masks, at(e.Box))
			}
			if a.OutlineMarks && e.Marked != nil && e.Marked.Marked == e.ID && e.Box.Width > 0 {
				outlines = append(outlines, at(e.Box))
			}
			if st.target != nil && f.ID == st.frame.ID && e.ID == st.target.id {
				b := at(e.Box)
				crop = &b
			}
		}
	}
	for _, f := range r.frames() {
		if f.URL == "" {
			continue // no document yet: nothing in it to show or mask
		}
		fctx, cancel := context.WithTimeout(ctx, frameScanTimeout)
		sc, err := r.marks.Scan(fctx, f, 0)
		cancel()
		if err == nil {
			var ox, oy float64
			if ox, oy, err = r.input.Offset(ctx, f); err == nil {
				add(f, sc, ox, oy)
				continue
			}
		}
		// A frame whose fields cannot be found cannot be masked: no picture.
		return nil, fail(spec.ReasonPageError, "Could not read the page to mask the User's fields: "+err.Error())
	}
	if st.target != nil && (crop == nil || crop.w <= 0 || crop.h <= 0) {
		return nil, fail(spec.ReasonNotVisible, fmt.Sprintf("Element %s has no visible box to picture; scroll to it or take a new snapshot.", st.target.ref))
	}
	shot, err := r.pic.Screenshot(ctx)
	if err != nil {
		return nil, fail(spec.ReasonPageError, "Could not take the picture: "+err.Error())
	}
	pic, err := png.Decode(bytes.NewReader(shot.PNG))
	if err != nil {
		return nil, fail(spec.ReasonPageError, "Could not read the picture: "+err.Error())
	}
	canvas := image.NewRGBA(pic.Bounds())
	draw.Draw(canvas, canvas.Bounds(), pic, pic.Bounds().Min, draw.Src)
	// Boxes are in the viewport; the picture starts at the page's top left.
	onPage := func(b box) image.Rectangle {
		x, y := b.x+shot.ScrollX, b.y+shot.ScrollY
		return image.Rect(int(x), int(y), int(x+b.w+0.999), int(y+b.h+0.999))
	}
	for _, b := range masks {
		draw.Draw(canvas, onPage(b), image.NewUniform(color.RGBA{0x44, 0x44, 0x44, 0xff}), image.Point{}, draw.Src)
	}
	for _, b := range outlines {
		outline(canvas, onPage(b).Inset(-2), color.RGBA{0xe0, 0x1b, 0x84, 0xff})
	}
	area := canvas.Bounds()
	switch {
	case crop != nil:
		area = onPage(*crop).Intersect(area)
	case !a.FullPage && shot.ViewWidth > 0:
		area = onPage(box{0, 0, shot.ViewWidth, shot.ViewHeight}).Intersect(area)
	}
	var out bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&out, canvas.SubImage(area)); err != nil {
		return nil, fail(spec.ReasonPageError, "Could not encode the picture: "+err.Error())
	}
	return out.Bytes(), nil
}

// outline draws a 3-pixel frame along r.
func outline(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	u := image.NewUniform(c)
	const w = 3
	for _, side := range []image.Rectangle{
		{r.Min, image.Pt(r.Max.X, r.Min.Y+w)}, {image.Pt(r.Min.X, r.Max.Y-w), r.Max},
		{r.Min, image.Pt(r.Min.X+w, r.Max.Y)}, {image.Pt(r.Max.X-w, r.Min.Y), r.Max},
	} {
		draw.Draw(img, side.Intersect(img.Bounds()), u, image.Point{}, draw.Src)
	}
}
