package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/internal/poolproc"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// With -browserless the browser comes from a Browserless pool, as an
// operator runs it: POOL_START (a shell command running the pool in the
// foreground), POOL_PORT and POOL_TOKEN, which deploy/browserless/pool-test.sh
// sets (`make pool-bench`). Each N gets a fresh pool allowing N connections
// (CONCURRENT), the demo airline's host flags and a marker in launch= (the
// pool starts its browsers in process groups of their own: the marker
// finds them). Only memory is measured: on a machine shared with others,
// time is not this bench's to measure.

const poolHeader = `| mode | sessions | Chromium PSS idle, open | Chromium per session PSS (private) | poppy-browser PSS idle, open | poppy-browser per session | Browserless (node) PSS idle, open |
| --- | --- | --- | --- | --- | --- | --- |`

// measurePool opens n sessions through a fresh pool, runs the agent's
// flow in each and prints one row, measured while every session (and its
// browser context) is still open: per session = (open - idle) / n, where
// idle is the same processes before the first session (with -mode http,
// the runtime attached with no session; with -mode processes, nothing).
func measurePool(poppy string, site *testsite.Site, n, rounds int) error {
	start, port, token := os.Getenv("POOL_START"), os.Getenv("POOL_PORT"), os.Getenv("POOL_TOKEN")
	if start == "" || port == "" || token == "" {
		return errors.New("-browserless needs POOL_START, POOL_PORT and POOL_TOKEN: run it through deploy/browserless/pool-test.sh bench")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	base := "http://127.0.0.1:" + port
	// The pool's output goes to stderr: DEBUG=-* keeps it quiet until it fails.
	pool, err := poolproc.Start(ctx, start, base+"/json/version?token="+url.QueryEscape(token), os.Stderr,
		fmt.Sprintf("CONCURRENT=%d", n), "QUEUED=0")
	if err != nil {
		return fmt.Errorf("%w (its output is above)", err)
	}
	defer pool.Stop()
	marker := fmt.Sprintf("--poppy-bench=%d", time.Now().UnixNano())
	defer waitUnmarked(marker)
	launch, _ := json.Marshal(map[string]any{"args": append(site.BrowserArgs(), marker)})
	cdpURL := base + "/?token=" + url.QueryEscape(token) + "&launch=" + url.QueryEscape(string(launch))

	chromiumPids := func() []int { return marked(marker) }
	poolPids := func() []int { return groupOf(pool.Pid) }
	var idleChromium, idlePoppy, idlePool mem
	idlePool = settled("the pool", poolPids)
	idle := func(addr, mcpToken string, proc *exec.Cmd) error {
		if err := waitAttached(ctx, addr, mcpToken); err != nil {
			return err
		}
		idleChromium = settled("the idle browser", chromiumPids)
		idlePoppy, idlePool = rollup(proc.Process.Pid), memOf(poolPids())
		return nil
	}
	sessions, procs, err := connect(ctx, poppy, cdpURL, n, idle)
	defer disconnect(sessions, procs, mode)
	if err != nil {
		return err
	}
	if _, err := drive(ctx, sessions, rounds); err != nil {
		return err
	}
	if err := checkOpen(ctx, sessions); err != nil {
		return err
	}
	if viewers {
		if mode != "http" {
			return errors.New("-viewers needs -mode http")
		}
		return measureViewers(ctx, sessions, procs[0].Process.Pid, chromiumPids, poolPids)
	}
	chromium := settled("the browsers", chromiumPids)
	poolMem := memOf(poolPids())
	var poppyMem mem
	for _, p := range procs {
		poppyMem = poppyMem.plus(rollup(p.Process.Pid))
	}
	per := func(open, idle int64) string { return fmt.Sprintf("%.1f MiB", float64(open-idle)/float64(n)/(1<<20)) }
	fmt.Printf("| %s | %d | %s, %s | %s (%s) | %s, %s in %d process(es) | %s | %s, %s |\n", mode, n,
		mib(idleChromium.pss), mib(chromium.pss), per(chromium.pss, idleChromium.pss), per(chromium.private, idleChromium.private),
		mib(idlePoppy.pss), mib(poppyMem.pss), len(procs), per(poppyMem.pss, idlePoppy.pss),
		mib(idlePool.pss), mib(poolMem.pss))
	return nil
}

// checkOpen asks every session for a snapshot: each is still open, on its
// own page, when the memory is read.
func checkOpen(ctx context.Context, sessions []*mcp.ClientSession) error {
	for i, cs := range sessions {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_snapshot"})
		if err != nil || res.IsError {
			return fmt.Errorf("session %d is not open when measured: %v %s", i, err, resultText(res))
		}
	}
	return nil
}

// waitAttached waits (at most 2 minutes) until the --http runtime at addr
// reports its browser attached on /metrics.
func waitAttached(ctx context.Context, addr, token string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	attached := regexp.MustCompile(`(?m)^poppy_browser_attached 1\b`)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if attached.Match(body) {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return errors.New("the runtime's /metrics did not report poppy_browser_attached 1 within 2 minutes")
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// groupOf lists the members of process group pgid.
func groupOf(pgid int) []int {
	var pids []int
	for pid, p := range processes() {
		if p.pgid == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitUnmarked kills what is left of the pool's browsers and waits (at
// most 30 s) until they are gone, so the next N starts on a quiet machine.
func waitUnmarked(marker string) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		killMarked(marker)
		left := 0
		for _, pid := range marked(marker) {
			if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && !strings.Contains(string(st), ") Z ") {
				left++
			}
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "sessions: %d browser processes of the pool outlived 30 s\n", left)
			return
		}
		<-time.After(100 * time.Millisecond) // polling /proc: no event to wait on
	}
}
