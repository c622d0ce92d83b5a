// Command sessions measures how poppy-browser scales with concurrent
// sessions against one shared browser, as a browser pool runs it: one
// Chromium started apart (headless, a DevTools port), the demo airline in
// process, and N `poppy-browser mcp --cdp-url` processes (one per Session,
// each in its own browser context), each driven by a go-sdk client calling
// tools at the same time as the others. With -mode http (the default) the N
// Sessions are N MCP sessions of one `poppy-browser mcp --http --cdp-url`
// process (a browser context each); with -mode processes, N processes of
// one session each. It prints the memory (PSS of the Chromium process tree
// and of the poppy-browser processes) and the p50 and p95 latency of each
// tool, for each N.
//
//	go build -o /tmp/poppy-browser ./cmd/poppy-browser
//	go run ./bench/sessions -poppy /tmp/poppy-browser -n 1,4,16 -rounds 10
//
// With -browserless the browsers come from a Browserless pool instead (a
// browser per connection), and it prints memory only, read while every
// session is open: `make pool-bench` runs it in both modes (pool.go).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/testsite"
)

func main() {
	poppy := flag.String("poppy", "", "the poppy-browser binary (required)")
	ns := flag.String("n", "1,4,16", "numbers of concurrent sessions")
	rounds := flag.Int("rounds", 10, "rounds of tool calls per session (navigate, snapshot, click, back, snapshot)")
	flag.StringVar(&mode, "mode", "http", "http: N MCP sessions of one process; processes: N processes of one session")
	pool := flag.Bool("browserless", false, "attach through a Browserless pool that POOL_START starts (deploy/browserless/pool-test.sh bench) and measure memory only")
	flag.BoolVar(&viewers, "viewers", false, "with -browserless -mode http: one live view viewer per session; CPU and memory over -window without, then with viewers")
	flag.DurationVar(&window, "window", 20*time.Second, "with -viewers: how long CPU is measured over")
	flag.StringVar(&page, "page", "static", "with -viewers: the page every session shows (static: the check-in page; ticking: a clock changing 10 times a second)")
	flag.Parse()
	if *poppy == "" {
		fmt.Fprintln(os.Stderr, "sessions: give -poppy BIN")
		os.Exit(2)
	}
	if err := run(*poppy, *ns, *rounds, *pool); err != nil {
		fmt.Fprintln(os.Stderr, "sessions:", err)
		os.Exit(1)
	}
}

var mode string

func run(poppy, ns string, rounds int, pool bool) error {
	site, err := testsite.New(nil)
	if err != nil {
		return err
	}
	if err := site.Start("127.0.0.1:0"); err != nil {
		return err
	}
	defer site.Close()
	fmt.Printf("mode %s, load average %s\n\n", mode, loadAverage())
	defer func() { fmt.Printf("\nload average at the end %s\n", loadAverage()) }()
	measure := measure
	if pool {
		measure = measurePool
		if viewers {
			fmt.Println(viewersHeader)
		} else {
			fmt.Println(poolHeader)
		}
	} else {
		fmt.Println("| sessions | Chromium PSS (idle) | Chromium per session | poppy-browser PSS | tool | calls | p50 | p95 | max |")
		fmt.Println("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	}
	for _, f := range strings.Split(ns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("bad -n %q", f)
		}
		if err := measure(poppy, site, n, rounds); err != nil {
			return fmt.Errorf("%d sessions: %w", n, err)
		}
	}
	return nil
}

// measure runs n sessions against a fresh Chromium and prints their rows.
func measure(poppy string, site *testsite.Site, n, rounds int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	chromium, cdpURL, err := startChromium(ctx, site.BrowserArgs())
	if err != nil {
		return err
	}
	defer chromium.stop()
	base := pssOfGroup(chromium.cmd.Process.Pid)

	sessions, procs, err := connect(ctx, poppy, cdpURL, n, nil)
	defer disconnect(sessions, procs, mode)
	if err != nil {
		return err
	}
	lat, err := drive(ctx, sessions, rounds)
	if err != nil {
		return err
	}
	chromeRSS := pssOfGroup(chromium.cmd.Process.Pid)
	var poppyRSS int64
	for _, p := range procs {
		poppyRSS += pss(p.Process.Pid)
	}
	tools := []string{"browser_navigate", "browser_snapshot", "browser_click", "browser_back"}
	for i, tool := range tools {
		ds := lat[tool]
		slices.Sort(ds)
		mem := "| | | |"
		if i == 0 {
			mem = fmt.Sprintf("| %s (%s) | %s | %s in %d process(es) |", mib(chromeRSS), mib(base), mib((chromeRSS-base)/int64(n)), mib(poppyRSS), len(procs))
		}
		fmt.Printf("| %d %s %s | %d | %s | %s | %s |\n", n, mem, tool, len(ds), ms(pct(ds, 50)), ms(pct(ds, 95)), ms(ds[len(ds)-1]))
	}
	return nil
}

// drive runs rounds of the agent's flow (navigate, snapshot, click,
// back, snapshot) in every session at once and returns each tool's
// latencies, or the first session's failure.
func drive(ctx context.Context, sessions []*mcp.ClientSession, rounds int) (map[string][]time.Duration, error) {
	n := len(sessions)
	lat := map[string][]time.Duration{}
	var mu sync.Mutex
	errs := make(chan error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, cs := range sessions {
		wg.Go(func() {
			<-start
			for range rounds {
				for _, c := range []struct {
					tool string
					in   map[string]any
				}{
					{"browser_navigate", map[string]any{"url": testsite.BookingURL()}},
					{"browser_snapshot", nil},
					{"browser_click", nil}, // the check-in link, found in the snapshot
					{"browser_back", nil},
					{"browser_snapshot", nil},
				} {
					in := c.in
					if c.tool == "browser_click" {
						ref, err := checkInLink(ctx, cs)
						if err != nil {
							errs <- err
							return
						}
						in = map[string]any{"ref": ref}
					}
					t0 := time.Now()
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: in})
					d := time.Since(t0)
					if err != nil || res.IsError {
						errs <- fmt.Errorf("%s: %v %s", c.tool, err, resultText(res))
						return
					}
					mu.Lock()
					lat[c.tool] = append(lat[c.tool], d)
					mu.Unlock()
				}
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	return lat, <-errs
}

// checkInLink snapshots the page (a call not counted) and returns the ref
// of its check-in link.
func checkInLink(ctx context.Context, cs *mcp.ClientSession) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_snapshot", Arguments: map[string]any{"elements": true}})
	if err != nil {
		return "", err
	}
	var sc struct {
		Elements []struct{ Ref, Role, Name string } `json:"elements"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &sc)
	for _, e := range sc.Elements {
		if e.Role == "link" && strings.Contains(strings.ToLower(e.Name), "check in") {
			return e.Ref, nil
		}
	}
	return "", errors.New("no check-in link on the booking page")
}

func resultText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	b, _ := json.Marshal(res.StructuredContent)
	return string(b)
}

type chromiumProc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func (c *chromiumProc) stop() {
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	<-c.done
}

// startChromium starts a headless Chromium with a DevTools port and
// returns its DevTools URL from the line it prints on stderr.
func startChromium(ctx context.Context, extra []string) (*chromiumProc, string, error) {
	bin, err := browser.FindChromium()
	if err != nil {
		return nil, "", err
	}
	profile, err := os.MkdirTemp("", "bench-sessions-")
	if err != nil {
		return nil, "", err
	}
	args := []string{"--headless", "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
		"--user-data-dir=" + profile, "--no-first-run", "--no-default-browser-check", "--disable-gpu"}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	cmd := exec.Command(bin, append(append(args, extra...), "about:blank")...)
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, "", err
	}
	cmd.Stderr = pw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	pw.Close()
	c := &chromiumProc{cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); os.RemoveAll(profile); close(c.done) }()
	found := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`DevTools listening on (ws://\S+)`)
		buf := make([]byte, 0, 64<<10)
		tmp := make([]byte, 4096)
		sent := false
		for {
			k, err := pr.Read(tmp)
			if !sent {
				buf = append(buf, tmp[:k]...)
				if m := re.FindSubmatch(buf); m != nil {
					found <- string(m[1])
					sent = true
				}
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case u := <-found:
		return c, u, nil
	case <-time.After(60 * time.Second):
		c.stop()
		return nil, "", errors.New("chromium printed no DevTools URL within 60 s")
	case <-ctx.Done():
		c.stop()
		return nil, "", ctx.Err()
	}
}

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	i := (len(ds)*p + 99) / 100
	return ds[max(i-1, 0)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }
func mib(b int64) string        { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
