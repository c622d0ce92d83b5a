// Command sidebyside measures poppy-browser's MCP server and Playwright MCP
// side by side, through the same MCP client (the go-sdk), on the same pages
// (the demo airline's testsite, served in this process), in one run.
//
// It is not part of make test; bench/sidebyside.sh installs @playwright/mcp
// from npm, builds poppy-browser and runs it. For each server it reports:
// cold start (process start to initialize answered, and to the first page
// loaded), tools/list bytes, and for each page the snapshot's median time,
// its text bytes and its bytes on the wire (the whole tool result as JSON),
// a click's median time, the share of the page's text the snapshot carries
// (12-word runs of the page's visible text found in the snapshot, the
// measure the issue tracker used) and the server's resident memory with its
// browser (every process in its tree).
//
// With -task checkin it runs the check-in task of the spec's section 7
// instead, on both servers, and reports what the model reads and how long
// its calls take (task.go); with -task shop, ten steps in the airline's
// travel shop (shoptask.go).
//
// With -pages DIR it measures a folder of saved real pages instead (each
// DIR/NAME/source.html, such as Mozilla Readability's test pages), served
// from their own host with every other site unreachable: per page, the
// snapshot's time, text bytes and text coverage on each server, the
// medians and the share of pages within the goals (pages.go).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/testsite"
)

func main() {
	poppy := flag.String("poppy", "bin/poppy-browser", "poppy-browser binary")
	playwright := flag.String("playwright", "", "path to @playwright/mcp's cli.js (empty: measure poppy-browser alone)")
	chromium := flag.String("chromium", "/usr/bin/chromium", "Chromium binary for both servers")
	runs := flag.Int("runs", 10, "timed repetitions of each snapshot and click, or of the task")
	taskName := flag.String("task", "", "run a task instead of the pages: checkin (section 7 of the spec) or shop (ten steps in the travel shop)")
	pagesDir := flag.String("pages", "", "measure the saved pages DIR/NAME/source.html instead of the built-in pages")
	pagesLimit := flag.Int("pages-limit", 0, "with -pages, measure only the first N pages in name order (0: all)")
	flag.Parse()
	log.SetFlags(0)
	if *taskName != "" && *taskName != "checkin" && *taskName != "shop" {
		log.Fatalf("sidebyside: -task is checkin, shop or empty, not %q", *taskName)
	}
	if *taskName != "" && *pagesDir != "" {
		log.Fatalf("sidebyside: -task and -pages are two different runs; give one")
	}
	if err := run(*poppy, *playwright, *chromium, *runs, *taskName, *pagesDir, *pagesLimit, os.Stdout); err != nil {
		log.Fatalf("sidebyside: %v", err)
	}
}

// page is one page both servers load.
type page struct {
	name   string
	url    string
	source []byte // for text coverage; nil when not measured
	click  string // accessible name of a button to click, "" for none
}

func pages() ([]page, error) {
	ps := []page{
		{name: "2,400 buttons", url: "https://" + testsite.CompanyDomain + "/fixtures/marks/buttons-2400.html", click: "Button 30"},
		{name: "5,000 elements", url: "https://" + testsite.CompanyDomain + "/fixtures/marks/elements-5000.html", click: "Order item 1"},
		{name: "check-in form", url: testsite.CheckInURL()},
	}
	for _, n := range testsite.CorpusPages() {
		src, err := testsite.CorpusPage(n)
		if err != nil {
			return nil, err
		}
		ps = append(ps, page{name: "corpus: " + n, url: testsite.CorpusURL(n), source: src})
	}
	return ps, nil
}

// server is one MCP server under test.
type server struct {
	name string
	cmd  func() *exec.Cmd
	// snapshotText extracts the snapshot text the model reads.
	snapshotText func(*mcp.CallToolResult) string
	// evaluates says the server has browser_evaluate (Playwright MCP): the
	// real-page bench reads the page's rendered text with it.
	evaluates bool
	// refOf finds the ref of the element with role and name in a result,
	// "" when it has none.
	refOf func(res *mcp.CallToolResult, role, name string) string
	// clickArgs are the arguments that name an element by ref (with name,
	// its description) to browser_click and the select tool.
	clickArgs func(ref, name string) map[string]any
	// selectTool is the tool that selects an option.
	selectTool string
	// liveURLFile holds the address of the User's live view, with its
	// token; "" for a server without one.
	liveURLFile string
	// navigateShows says browser_navigate answers with the page's
	// snapshot; without it a model takes browser_snapshot to read a page.
	navigateShows bool
	// wholePage says a result shows the whole page (not only what
	// changed, nor no page at all): the refs the model read before it
	// are of an older look.
	wholePage func(*mcp.CallToolResult) bool
	// showsPage says a result shows the page, whole or what changed.
	showsPage func(*mcp.CallToolResult) bool
	// wholeArgs are browser_snapshot's arguments that read the whole page
	// (poppy-browser shows what changed on a page the model has read).
	wholeArgs map[string]any
}

// whole is a new copy of s's arguments that read the whole page.
func (s server) whole() map[string]any {
	out := map[string]any{}
	for k, v := range s.wholeArgs {
		out[k] = v
	}
	return out
}

// result is what one server measured.
type result struct {
	initialize, firstPage time.Duration
	toolsListBytes        int
	rssKiB                int
	pages                 []pageResult
}

type pageResult struct {
	page
	snapshot         time.Duration
	open             time.Duration // navigate, and snapshot unless navigate shows the page
	textBytes, wire  int
	allBytes         int // the text of every part of the snapshot (read on with from)
	click            time.Duration
	coverage         float64
	coverageMeasured bool
	ref              string // the ref of the button to click
	err              error
}

func run(poppyBin, playwrightCLI, chromium string, runs int, taskName, pagesDir string, pagesLimit int, out io.Writer) error {
	site, err := testsite.New(nil)
	if err != nil {
		return err
	}
	if err := site.Start("127.0.0.1:0"); err != nil {
		return err
	}
	defer site.Close()
	args := site.BrowserArgs()
	ps, err := pages()
	if err != nil {
		return err
	}
	var realPs []page
	if pagesDir != "" {
		if realPs, err = realPages(pagesDir, pagesLimit); err != nil {
			return err
		}
		addr, stop, err := serveRealPages(realPs)
		if err != nil {
			return err
		}
		defer stop()
		args = realPageArgs(args, site.Addr(), addr)
	}

	tmp, err := os.MkdirTemp("", "sidebyside-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	passkeys := filepath.Join(tmp, "passkeys.json")
	servers := []server{poppyServer(poppyBin, chromium, args, filepath.Join(tmp, "live-url"), passkeys)}
	if playwrightCLI != "" {
		s, cleanup, err := playwrightServer(playwrightCLI, chromium, args)
		if err != nil {
			return err
		}
		defer cleanup()
		servers = append(servers, s)
	}
	// Start the servers one after the other (cold start), then measure
	// every page on each in turn, alternating call by call, so that a busy
	// moment of the machine falls on both alike.
	results := make([]result, len(servers))
	sessions := make([]*mcp.ClientSession, len(servers))
	// Each real page has its own bound (pageTimeout) within this one.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute+time.Duration(len(realPs))*pageTimeout)
	defer cancel()
	for i, s := range servers {
		fmt.Fprintf(os.Stderr, "starting %s\n", s.name)
		cs, err := start(ctx, s, &results[i], ps[2].url)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		defer cs.Close()
		sessions[i] = cs
	}
	switch taskName {
	case "checkin":
		dev, err := pairDevice(ctx, poppyBin, chromium, passkeys)
		if err != nil {
			return err
		}
		defer dev.close()
		return runCheckIn(ctx, site, servers, sessions, runs, dev, out)
	case "shop":
		return runShop(ctx, site, servers, sessions, runs, out)
	}
	if realPs != nil {
		measureRealPages(ctx, realPs, servers, sessions, runs, out)
		return nil
	}
	for _, p := range ps {
		fmt.Fprintf(os.Stderr, "measuring %s\n", p.name)
		prs := make([]pageResult, len(servers))
		for i := range servers {
			prs[i] = pageResult{page: p}
			if _, err := call(ctx, sessions[i], "browser_navigate", map[string]any{"url": p.url}); err != nil {
				prs[i].err = err
			}
		}
		for i := range servers {
			measureSnapshot(ctx, sessions[i], servers[i], &prs[i], 1) // warm up, and find the ref to click
			if prs[i].err == nil {
				r := readOn(ctx, sessions[i], servers[i], p)
				prs[i].allBytes, prs[i].err = r.bytes, r.err
				if dir := os.Getenv("SIDEBYSIDE_DUMP"); dir != "" {
					os.WriteFile(filepath.Join(dir, servers[i].name+" - "+strings.ReplaceAll(p.name, "/", "_")+" (every part).txt"), []byte(r.text), 0o644)
				}
			}
		}
		times := make([][]time.Duration, len(servers))
		for range runs {
			for i := range servers {
				if prs[i].err == nil {
					times[i] = append(times[i], measureSnapshot(ctx, sessions[i], servers[i], &prs[i], 1))
				}
			}
		}
		for i := range servers {
			prs[i].snapshot = median(times[i])
			times[i] = times[i][:0]
		}
		if p.click != "" {
			for range runs {
				for i := range servers {
					if prs[i].err == nil {
						times[i] = append(times[i], measureClick(ctx, sessions[i], servers[i], &prs[i]))
					}
				}
			}
			for i := range servers {
				prs[i].click = median(times[i])
			}
		}
		// Opening the page anew: a new document, so the first snapshot of
		// it is a whole scan (a later one of the unchanged page is answered
		// from the scanner's memo, as the rows above are for poppy-browser).
		for range runs {
			for i := range servers {
				if prs[i].err == nil {
					times[i] = append(times[i], measureOpen(ctx, sessions[i], servers[i], &prs[i]))
				}
			}
		}
		for i := range servers {
			prs[i].open = median(times[i])
			times[i] = times[i][:0]
			results[i].pages = append(results[i].pages, prs[i])
		}
	}
	for i := range servers {
		// RSS now, while every server still runs.
		results[i].rssKiB = treeRSS(pidOf(sessions[i]))
	}
	report(out, servers, results)
	return nil
}

// start starts a server, measuring its cold start: initialize answered, and
// the first page loaded, both from the process start.
func start(ctx context.Context, s server, r *result, firstURL string) (*mcp.ClientSession, error) {
	cmd := s.cmd()
	cmd.Stderr = io.Discard
	client := mcp.NewClient(&mcp.Implementation{Name: "sidebyside", Version: "1"}, nil)
	t := time.Now()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting: %w", err)
	}
	r.initialize = time.Since(t)
	pids[cs] = cmd.Process.Pid
	if _, err := call(ctx, cs, "browser_navigate", map[string]any{"url": firstURL}); err != nil {
		cs.Close()
		return nil, fmt.Errorf("first navigation: %w", err)
	}
	r.firstPage = time.Since(t)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		cs.Close()
		return nil, err
	}
	b, _ := json.Marshal(tools)
	r.toolsListBytes = len(b)
	return cs, nil
}

// pids maps a session to its server's process.
var pids = map[*mcp.ClientSession]int{}

func pidOf(cs *mcp.ClientSession) int { return pids[cs] }

// measureSnapshot takes one snapshot, records its sizes and coverage, and
// returns its time. An error is kept in pr.
func measureSnapshot(ctx context.Context, cs *mcp.ClientSession, s server, pr *pageResult, _ int) time.Duration {
	if pr.err != nil {
		return 0
	}
	t := time.Now()
	res, err := call(ctx, cs, "browser_snapshot", s.whole())
	d := time.Since(t)
	if err != nil {
		pr.err = err
		return 0
	}
	text := s.snapshotText(res)
	pr.textBytes = len(text)
	wire, _ := json.Marshal(res)
	pr.wire = len(wire)
	if dir := os.Getenv("SIDEBYSIDE_DUMP"); dir != "" {
		// Each server's snapshot text, to read what a model reads.
		os.WriteFile(filepath.Join(dir, s.name+" - "+strings.ReplaceAll(pr.name, "/", "_")+".txt"), []byte(text), 0o644)
	}
	if pr.source != nil {
		pr.coverage, pr.coverageMeasured = coverage(pr.source, pr.name, text), true
	}
	if pr.page.click != "" && pr.ref == "" {
		if pr.ref = s.refOf(res, "button", pr.page.click); pr.ref == "" {
			pr.err = fmt.Errorf("no button %q in the snapshot", pr.page.click)
		}
	}
	return d
}

// measureOpen navigates to the page and, when the navigation's result
// does not hold the page, takes a snapshot: what a model calls to read a
// page it opens.
func measureOpen(ctx context.Context, cs *mcp.ClientSession, s server, pr *pageResult) time.Duration {
	t := time.Now()
	if _, err := call(ctx, cs, "browser_navigate", map[string]any{"url": pr.page.url}); err != nil {
		pr.err = err
		return 0
	}
	if !s.navigateShows {
		if _, err := call(ctx, cs, "browser_snapshot", s.whole()); err != nil {
			pr.err = err
			return 0
		}
	}
	return time.Since(t)
}

// measureClick clicks the page's button once and returns the time.
func measureClick(ctx context.Context, cs *mcp.ClientSession, s server, pr *pageResult) time.Duration {
	if pr.err != nil {
		return 0
	}
	t := time.Now()
	if _, err := call(ctx, cs, "browser_click", s.clickArgs(pr.ref, pr.page.click)); err != nil {
		pr.err = err
		return 0
	}
	return time.Since(t)
}

// call calls a tool; a tool error (isError) is an error here.
func call(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if res.IsError {
		return nil, fmt.Errorf("%s failed: %s", name, firstText(res))
	}
	return res, nil
}

func firstText(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(t.Text)
		}
	}
	return sb.String()
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
