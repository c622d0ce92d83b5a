package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The real-page corpus (-pages DIR) is a folder of saved pages, each
// DIR/NAME/source.html, such as Mozilla Readability's test pages. They are
// other sites' content, so they are served from their own host, not the
// Company's, over plain HTTP on loopback; both browsers map that host to
// it and every host that is neither it nor *.test to "not found", so an
// image or script of the original site fails at once on both sides.

// realPagesHost serves the saved pages; it is not a Company host.
const realPagesHost = "realpages.test"

// pageTimeout bounds one page (navigation and every snapshot of it): a
// page that takes longer is reported as timed out, and the bench goes on.
const pageTimeout = 2 * time.Minute

// realPages lists DIR/NAME/source.html in name order, the first limit of
// them (all when limit <= 0).
func realPages(dir string, limit int) ([]page, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var ps []page
	for _, e := range entries {
		if limit > 0 && len(ps) == limit {
			break
		}
		src, err := os.ReadFile(filepath.Join(dir, e.Name(), "source.html"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		ps = append(ps, page{name: e.Name(), url: "http://" + realPagesHost + "/" + e.Name() + "/", source: src})
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("no NAME/source.html under %s", dir)
	}
	return ps, nil
}

// serveRealPages serves each page's source at /NAME/ on a loopback port
// and 404 for anything else (the pages' own images, scripts, styles). The
// returned function stops it.
func serveRealPages(ps []page) (addr string, stop func(), err error) {
	byPath := map[string][]byte{}
	for _, p := range ps {
		byPath["/"+p.name+"/"] = p.source
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			src, ok := byPath[r.URL.Path]
			if !ok {
				http.NotFound(w, r)
				return
			}
			// Its site declared UTF-8 in its header, as most do; a saved page
			// that is not UTF-8 leaves it to its own <meta charset>. (Without
			// it, a page whose <meta charset> comes after the first 1,024
			// bytes is read as windows-1252.)
			ct := "text/html"
			if utf8.Valid(src) {
				ct += "; charset=utf-8"
			}
			w.Header().Set("Content-Type", ct)
			w.Write(src)
		}),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       60 * time.Second,
	}
	go srv.Serve(ln)
	return ln.Addr().String(), func() { srv.Close() }, nil
}

// realPageArgs are the site's browser flags with its host-resolver rule
// replaced: realPagesHost to the pages' server, *.test to the site, every
// other host not found.
func realPageArgs(siteArgs []string, siteAddr, pagesAddr string) []string {
	var args []string
	for _, a := range siteArgs {
		if !strings.HasPrefix(a, "--host-resolver-rules=") {
			args = append(args, a)
		}
	}
	return append(args, "--host-resolver-rules=MAP "+realPagesHost+" "+pagesAddr+
		", MAP *.test "+siteAddr+", MAP * ~NOTFOUND, EXCLUDE localhost")
}

// measureRealPages navigates every server to each page in turn, then
// times the first snapshot and runs more, alternating server by server,
// and reports.
func measureRealPages(ctx context.Context, ps []page, servers []server, sessions []*mcp.ClientSession, runs int, out io.Writer) {
	results := make([]measuredPage, len(ps))
	for n, p := range ps {
		fmt.Fprintf(os.Stderr, "page %d/%d: %s\n", n+1, len(ps), p.name)
		pctx, cancel := context.WithTimeout(ctx, pageTimeout)
		prs := make([]pageResult, len(servers))
		answered := make([]string, len(servers))
		dialogs := false
		for i := range servers {
			prs[i] = pageResult{page: p}
			n, err := navigateAnswering(pctx, sessions[i], p.url)
			prs[i].err = err
			answered[i], dialogs = fmt.Sprint(n), dialogs || n > 0
		}
		if dialogs {
			prs[0].name += " (dialogs answered: " + strings.Join(answered, " / ") + ")"
		}
		// The first snapshot after the navigation is timed on its own: the
		// one a model takes of a new page; poppy-browser's repeats of an
		// unchanged page reuse its scan.
		first := make([]time.Duration, len(servers))
		for i := range servers {
			first[i] = measureSnapshot(pctx, sessions[i], servers[i], &prs[i], 1)
		}
		times := make([][]time.Duration, len(servers))
		for range runs {
			for i := range servers {
				if prs[i].err == nil {
					times[i] = append(times[i], measureSnapshot(pctx, sessions[i], servers[i], &prs[i], 1))
				}
			}
		}
		for i := range servers {
			prs[i].snapshot = median(times[i])
			if prs[i].err != nil && pctx.Err() != nil {
				prs[i].err = fmt.Errorf("timed out after %v waiting for the page's navigation and snapshots: %w", pageTimeout, prs[i].err)
			}
		}
		parts := make([]readOnResult, len(servers))
		for i := range servers {
			if prs[i].err == nil {
				parts[i] = readOn(pctx, sessions[i], servers[i], p)
			}
		}
		rendered, renderedErr := renderedCoverage(pctx, servers, sessions, p)
		cancel()
		results[n] = measuredPage{words: pageWords(p), servers: prs, first: first, parts: parts, rendered: rendered, renderedErr: renderedErr}
	}
	reportRealPages(out, servers, results)
}

// readOnResult is a snapshot read to its end, part after part.
type readOnResult struct {
	parts    int
	bytes    int    // of every part's text
	text     string // every part's text
	coverage float64
	err      error
}

// readOnFrom finds the line a capped snapshot says to read on from.
var readOnFrom = regexp.MustCompile(`take browser_snapshot with from=(\d+) to read on`)

// maxParts bounds the parts read of one snapshot.
const maxParts = 20

// readOn takes a snapshot and the parts after it, as a model that reads
// on would, and measures the coverage of them all (untimed).
func readOn(ctx context.Context, cs *mcp.ClientSession, s server, p page) readOnResult {
	var all strings.Builder
	r := readOnResult{}
	args := s.whole()
	for r.parts < maxParts {
		res, err := call(ctx, cs, "browser_snapshot", args)
		if err != nil {
			r.err = err
			return r
		}
		r.parts++
		text := s.snapshotText(res)
		all.WriteString(text)
		r.bytes += len(text)
		m := readOnFrom.FindStringSubmatch(text)
		if m == nil {
			break
		}
		from, _ := strconv.Atoi(m[1])
		args = map[string]any{"from": from}
	}
	r.text = all.String()
	if p.source != nil {
		r.coverage = coverage(p.source, p.name, r.text)
	}
	return r
}

// renderedCoverage is the coverage of the text the page renders
// (document.body.innerText, read with the first server that evaluates
// script), a reference for the snapshots' figures: the coverage measure
// reads the HTML, so it counts text a style sheet hides, which no
// snapshot shows (innerText in turn leaves out image alt text, which the
// measure counts). It is -1 when no server evaluates.
func renderedCoverage(ctx context.Context, servers []server, sessions []*mcp.ClientSession, p page) (float64, error) {
	for i, s := range servers {
		if !s.evaluates {
			continue
		}
		res, err := call(ctx, sessions[i], "browser_evaluate", map[string]any{"function": "() => document.body.innerText"})
		if err != nil {
			return 0, err
		}
		text, err := evaluateResult(firstText(res))
		if err != nil {
			return 0, err
		}
		return coverage(p.source, p.name, text), nil
	}
	return -1, nil
}

// evaluateResult is the string a browser_evaluate result holds: Playwright
// MCP writes it as JSON under "### Result".
func evaluateResult(text string) (string, error) {
	_, after, ok := strings.Cut(text, "### Result\n")
	if !ok {
		return "", fmt.Errorf("browser_evaluate: no result in %.80q", text)
	}
	after, _, _ = strings.Cut(after, "\n### ")
	var s string
	if err := json.Unmarshal([]byte(strings.TrimSpace(after)), &s); err != nil {
		return "", fmt.Errorf("browser_evaluate: result is not a JSON string: %w", err)
	}
	return s, nil
}

// navigateAnswering navigates and, when the page opens dialogs as it loads
// (a test page alerts when a script it expects removed runs), answers them
// with OK, as a model would, so the page can be read and the next one
// loaded. It returns how many it answered.
func navigateAnswering(ctx context.Context, cs *mcp.ClientSession, url string) (int, error) {
	res, err := call(ctx, cs, "browser_navigate", map[string]any{"url": url})
	if !mentionsDialog(res, err) {
		return 0, err
	}
	answered := 0
	for answered < maxDialogs {
		if _, err := call(ctx, cs, "browser_handle_dialog", map[string]any{"accept": true}); err != nil {
			break // no dialog left open
		}
		answered++
	}
	return answered, nil
}

// maxDialogs bounds the dialogs answered on one page.
const maxDialogs = 5

// mentionsDialog reports whether a navigation's result or error says a
// dialog is open: poppy-browser's dialog in a done result (or, before,
// its dialog_open refusal), Playwright MCP's modal state.
func mentionsDialog(res *mcp.CallToolResult, err error) bool {
	if err != nil {
		return strings.Contains(err.Error(), "dialog_open") || strings.Contains(err.Error(), "Modal state")
	}
	if sc, ok := res.StructuredContent.(map[string]any); ok && sc["dialog"] != nil {
		return true
	}
	return strings.Contains(firstText(res), "Modal state")
}
