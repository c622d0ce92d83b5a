package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/testsite"
)

// With -viewers (and -browserless -mode http) every session's live view
// gets one viewer: a websocket client on its path, as the User's page,
// that reads every message (the screencast's frames among them). The
// runtime's and the browsers' CPU and memory are read from /proc over a
// window without viewers, then over the same window with them.

var (
	viewers bool
	window  time.Duration
	page    string
	// runtimeLog is the --http runtime's stderr: its live view lines.
	runtimeLog lockedBuffer
)

const viewersHeader = `| sessions | page | CPU without viewers: runtime, Chromium, pool | CPU with a viewer each: runtime, Chromium, pool | frames/s per viewer | KiB/s per viewer | runtime RSS without, with viewers | Chromium RSS (sum) without, with | Chromium private per session without, with |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |`

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// pageURL is the page every session shows while watched: "static" is the
// demo's check-in page (a screencast sends a frame only when the page
// changes), "ticking" a page whose clock changes 10 times a second.
func pageURL() string {
	if page == "ticking" {
		return "https://" + testsite.CompanyDomain + testsite.ClockFixturePath
	}
	return testsite.CheckInURL()
}

// cpuTicks sums utime and stime (clock ticks, 1/100 s here) of pids.
func cpuTicks(pids []int) map[int]int64 {
	out := map[int]int64{}
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		out[pid] = u + s
	}
	return out
}

// cpuOver is the CPU pids() used over d, in percent of one core: processes
// present at both ends (a process started within d counts from zero).
func cpuOver(ctx context.Context, d time.Duration, groups ...func() []int) []float64 {
	before := make([]map[int]int64, len(groups))
	for i, g := range groups {
		before[i] = cpuTicks(g())
	}
	start := time.Now()
	select {
	case <-ctx.Done():
	case <-time.After(d): // a window of time to measure over, not a wait for an event
	}
	el := time.Since(start).Seconds()
	out := make([]float64, len(groups))
	for i, g := range groups {
		var sum int64
		for pid, t := range cpuTicks(g()) {
			sum += t - before[i][pid]
		}
		out[i] = float64(sum) / 100 / el * 100
	}
	return out
}

// rss sums VmRSS of pids, in bytes.
func rss(pids []int) int64 {
	var sum int64
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				sum += kb * 1024
			}
		}
	}
	return sum
}

// viewer is one User's page on a session's live view.
type viewer struct {
	conn          *websocket.Conn
	frames, bytes atomic.Int64
}

// watch connects one viewer to each session's live view (its line on the
// runtime's stderr) and reads until the connection closes.
func watch(ctx context.Context, sessions []*mcp.ClientSession) ([]*viewer, error) {
	var vs []*viewer
	for i, cs := range sessions {
		m := regexp.MustCompile(`live view for the User of MCP session ` + regexp.QuoteMeta(cs.ID()) + `: (\S+)`).FindStringSubmatch(runtimeLog.String())
		if m == nil {
			return vs, fmt.Errorf("session %d's live view is not on the runtime's stderr", i)
		}
		u, err := url.Parse(m[1])
		if err != nil {
			return vs, err
		}
		ws := "ws://" + u.Host + u.Path + "/ws?" + u.RawQuery
		conn, _, err := websocket.DefaultDialer.DialContext(ctx, ws, http.Header{"Origin": {"http://" + u.Host}})
		if err != nil {
			return vs, fmt.Errorf("session %d's viewer: %w", i, err)
		}
		v := &viewer{conn: conn}
		_ = conn.WriteJSON(map[string]any{"type": "viewer", "width": 1280, "height": 800, "scale": 1})
		go func() {
			for {
				_, msg, err := conn.ReadMessage()
				if err != nil {
					return
				}
				if bytes.Contains(msg[:min(len(msg), 40)], []byte(`"type":"frame"`)) {
					v.frames.Add(1)
				}
				v.bytes.Add(int64(len(msg)))
			}
		}()
		vs = append(vs, v)
	}
	return vs, nil
}

// measureViewers prints one row of viewersHeader for the sessions of the
// --http runtime proc, on browsers chromiumPids() and the pool poolPids().
func measureViewers(ctx context.Context, sessions []*mcp.ClientSession, runtimePid int, chromiumPids, poolPids func() []int) error {
	n := len(sessions)
	for i, cs := range sessions {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_navigate", Arguments: map[string]any{"url": pageURL()}})
		if err != nil || res.IsError {
			return fmt.Errorf("session %d opens the %s page: %v %s", i, page, err, resultText(res))
		}
	}
	runtimePids := func() []int { return []int{runtimePid} }
	chromeBefore := settled("the browsers", chromiumPids)
	rtRSS0, chRSS0 := rss(runtimePids()), rss(chromiumPids())
	idle := cpuOver(ctx, window, runtimePids, chromiumPids, poolPids)
	vs, err := watch(ctx, sessions)
	defer func() {
		for _, v := range vs {
			v.conn.Close()
		}
	}()
	if err != nil {
		return err
	}
	// The first frames (a screencast starts with one) before the window.
	<-time.After(2 * time.Second)
	f0, b0 := make([]int64, n), make([]int64, n)
	for i, v := range vs {
		f0[i], b0[i] = v.frames.Load(), v.bytes.Load()
	}
	start := time.Now()
	busy := cpuOver(ctx, window, runtimePids, chromiumPids, poolPids)
	el := time.Since(start).Seconds()
	var frames, byts int64
	for i, v := range vs {
		frames += v.frames.Load() - f0[i]
		byts += v.bytes.Load() - b0[i]
	}
	rtRSS1, chRSS1 := rss(runtimePids()), rss(chromiumPids())
	chromeWith := memOf(chromiumPids())
	for i, v := range vs {
		if v.frames.Load() == 0 {
			return fmt.Errorf("session %d's viewer got no frame", i)
		}
	}
	pct := func(c []float64) string { return fmt.Sprintf("%.0f %%, %.0f %%, %.0f %%", c[0], c[1], c[2]) }
	fmt.Printf("| %d | %s | %s | %s | %.1f | %.0f | %s, %s | %s, %s | %.0f MiB, %.0f MiB |\n", n, page, pct(idle), pct(busy),
		float64(frames)/float64(n)/el, float64(byts)/float64(n)/el/1024,
		mib(rtRSS0), mib(rtRSS1), mib(chRSS0), mib(chRSS1),
		float64(chromeBefore.private)/float64(n)/(1<<20), float64(chromeWith.private)/float64(n)/(1<<20))
	return nil
}
