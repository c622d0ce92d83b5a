package browser

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// animatedPage repaints every frame: a moving box over a page of text, so
// the screencast sends a frame per repaint.
const animatedPage = `<!doctype html><meta name=viewport content="width=device-width">
<style>@keyframes m { from { transform: translateX(0) } to { transform: translateX(300px) } }
#b { position: fixed; top: 40px; left: 0; width: 60px; height: 60px; background: #36c; animation: m 1s linear infinite alternate }
body { font: 15px/1.4 sans-serif; margin: 12px }</style><div id=b></div>`

// BenchmarkPhoneFrames is the cost of a phone's picture at 1x (the
// browser's own window) and at 2x (the window on a 2x screen, as in the
// User's phone turn): a 390x844 phone at 3x, a page that repaints every
// frame. Per frame: the JPEG's bytes, and the CPU time of the renderers and
// of the browser process (compositing, the JPEG); after the run, the
// renderers' RSS (summed: shared pages count once a process). 1.5x is a
// phone of ratio 1.5.
//
//	go test -run '^$' -bench PhoneFrames -benchtime 60x ./browser/
func BenchmarkPhoneFrames(b *testing.B) {
	text := strings.Repeat("<p>Check in for flight PA1234 from Lisbon to Oslo. Passenger Ada Lovelace, booking bkg_4Rt9. Seat 14C, boarding at gate 22.</p>", 20)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, animatedPage+text)
	})}
	go srv.Serve(l)
	defer srv.Close()
	for _, c := range []struct {
		name  string
		scale float64 // the phone's
		sharp bool
	}{{"1x", 3, false}, {"1.5x", 1.5, true}, {"2x", 3, true}} {
		name, sharp := c.name, c.sharp
		b.Run(name, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			br, err := Launch(ctx, &Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer br.Close()
			br.emu.sharp.refused = !sharp
			p, err := br.NewPage(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := p.Navigate(ctx, "http://"+l.Addr().String()+"/"); err != nil {
				b.Fatal(err)
			}
			if err := br.EmulateDevice(ctx, &Device{Width: 390, Height: 844, Scale: c.scale, Mobile: true, Touch: true}); err != nil {
				b.Fatal(err)
			}
			cpu0 := processCPU(ctx, b, br)
			var bytes, frames int
			var w, h int
			sctx, stop := context.WithCancel(ctx)
			done := make(chan struct{})
			b.ResetTimer()
			go func() {
				defer close(done)
				_ = p.Screencast(sctx, func(f ScreencastFrame) {
					if frames == 0 {
						w, h = jpegSize(f.JPEG)
					}
					frames++
					bytes += len(f.JPEG)
					if frames >= b.N {
						stop()
					}
				})
			}()
			<-done
			b.StopTimer()
			stop()
			cpu1 := processCPU(ctx, b, br)
			b.ReportMetric(float64(bytes)/float64(frames), "B/frame")
			b.ReportMetric(1000*(cpu1["renderer"]-cpu0["renderer"])/float64(frames), "renderer-cpu-ms/frame")
			b.ReportMetric(1000*(cpu1["browser"]-cpu0["browser"])/float64(frames), "browser-cpu-ms/frame")
			b.ReportMetric(rendererRSS(ctx, b, br)/1e6, "renderer-RSS-MB")
			b.Logf("%s: frames %dx%d", name, w, h)
		})
	}
}

type processInfo struct {
	ProcessInfo []struct {
		Type    string  `json:"type"`
		ID      int     `json:"id"`
		CPUTime float64 `json:"cpuTime"`
	} `json:"processInfo"`
}

func processCPU(ctx context.Context, b *testing.B, br *Browser) map[string]float64 {
	var res processInfo
	if err := br.conn.Root().Call(ctx, "SystemInfo.getProcessInfo", nil, &res); err != nil {
		b.Fatal(err)
	}
	out := map[string]float64{}
	for _, p := range res.ProcessInfo {
		out[p.Type] += p.CPUTime
	}
	return out
}

func rendererRSS(ctx context.Context, b *testing.B, br *Browser) float64 {
	var res processInfo
	if err := br.conn.Root().Call(ctx, "SystemInfo.getProcessInfo", nil, &res); err != nil {
		b.Fatal(err)
	}
	var total float64
	for _, p := range res.ProcessInfo {
		if p.Type != "renderer" {
			continue
		}
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.ID))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(st), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
				kb, _ := strconv.ParseFloat(f[1], 64)
				total += kb * 1024
			}
		}
	}
	return total
}
