package ui

import (
	"bytes"
	"context"
	"image/jpeg"
	"slices"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/poppy-browser/poppy-browser/browser"
)

// BenchmarkTapToFrame measures, on loopback, the time from a tap (or a
// click) sent on the live view's websocket to the first frame that shows
// its effect: the /toggle page flips from red to blue on each press. It
// reports p50 and p90 in ms, and the stream's frames and JPEG bytes per
// second while the page animates (/form's spinner).
//
//	go test -run '^$' -bench TapToFrame -benchtime 20x ./ui
func BenchmarkTapToFrame(b *testing.B) {
	for _, size := range []struct {
		name string
		dev  *browser.Device // the viewer: nil is a desktop viewer (the agent's own 1280-px viewport)
	}{
		{"desktop", nil},
		{"phone", &phone},
	} {
		b.Run(size.name, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute)
			defer cancel()
			p := chromium.NewPage(b)
			if _, err := p.Navigate(ctx, "http://company.test/toggle"); err != nil {
				b.Fatal(err)
			}
			l := benchLive(b, p)
			c, _, err := dial(ctx, l, l.token.Reveal(), "http://"+liveAddr(l))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			if d := size.dev; d != nil {
				if err := c.WriteJSON(map[string]any{"type": "viewer", "width": d.Width, "height": d.Height, "scale": d.Scale, "mobile": true, "touch": true}); err != nil {
					b.Fatal(err)
				}
			}
			if err := c.WriteJSON(map[string]string{"type": "take"}); err != nil {
				b.Fatal(err)
			}
			press := func() {
				var msgs []map[string]any
				if size.dev != nil {
					msgs = []map[string]any{
						{"type": "touch", "event": "start", "points": []map[string]any{{"x": 100, "y": 100}}},
						{"type": "touch", "event": "end"},
					}
				} else {
					msgs = []map[string]any{
						{"type": "mouse", "event": "down", "x": 100, "y": 100, "button": "left"},
						{"type": "mouse", "event": "up", "x": 100, "y": 100, "button": "left"},
					}
				}
				for _, m := range msgs {
					if err := c.WriteJSON(m); err != nil {
						b.Fatal(err)
					}
				}
			}
			red := waitColour(ctx, b, c, nil) // the picture as it is now
			var lat []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				press()
				was := red
				red = waitColour(ctx, b, c, &was)
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "p90-ms")

			// The stream while the page animates.
			if _, err := p.Navigate(ctx, "http://company.test/form"); err != nil {
				b.Fatal(err)
			}
			frames, jpegBytes := 0, 0
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			window := 3 * time.Second
			start := time.Now()
			for time.Since(start) < window {
				var m message
				if err := c.ReadJSON(&m); err != nil {
					b.Fatal(err)
				}
				if m.Type == "frame" {
					frames++
					jpegBytes += len(m.Data)
				}
			}
			b.ReportMetric(float64(frames)/window.Seconds(), "frames/s")
			b.ReportMetric(float64(jpegBytes)/window.Seconds()/1024, "KiB/s")
		})
	}
}

func benchLive(b *testing.B, p *browser.Page) *Live {
	b.Helper()
	l, err := NewLive(&LiveOptions{InsecureTakeByLink: true, Control: controlOn(p), Page: func() *browser.Page { return p }})
	if err != nil {
		b.Fatal(err)
	}
	if err := l.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = l.Shutdown(ctx)
	})
	return l
}

// waitColour reads frames until one is red or blue at (100, 100) and,
// with not, differs from *not; it reports whether it is red.
func waitColour(ctx context.Context, b *testing.B, c *websocket.Conn, not *bool) bool {
	b.Helper()
	dl, _ := ctx.Deadline()
	c.SetReadDeadline(dl)
	for {
		var m message
		if err := c.ReadJSON(&m); err != nil {
			b.Fatalf("waiting for a frame (until %s): %v", dl.Format(time.TimeOnly), err)
		}
		if m.Type != "frame" || m.Width == 0 {
			continue
		}
		img, err := jpeg.Decode(bytes.NewReader(m.Data))
		if err != nil {
			continue
		}
		bounds := img.Bounds()
		k := float64(bounds.Dx()) / m.Width
		r, _, bl, _ := img.At(int(100*k), int(100*k)).RGBA()
		isRed, isBlue := r>>8 > 200 && bl>>8 < 80, bl>>8 > 200 && r>>8 < 80
		if !isRed && !isBlue {
			continue
		}
		if not == nil || isRed != *not {
			return isRed
		}
	}
}
