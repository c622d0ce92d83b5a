package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/poppy-browser/poppy-browser/check"
	"github.com/poppy-browser/poppy-browser/internal/cli"
)

// runCheck runs the check subcommand; client is what discovery uses (nil:
// a default client; tests pass the testsite's, which trusts its own CA).
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer, client *http.Client) error {
	fs := cli.NewFlagSet("check", "check [flags] URL...", stderr)
	var bf config
	fs.StringVar(&bf.Chromium, "chromium", "", "Chromium binary (default: find chromium or chrome on PATH)")
	fs.StringVar(&bf.CDPURL, "cdp-url", "", "attach to this browser's DevTools URL instead of launching one")
	fs.BoolVar(&bf.Headful, "headful", false, "show the browser window")
	fs.Var(&bf.browserArgs, "browser-arg", "extra Chromium flag (repeatable), e.g. --host-resolver-rules=...")
	bf.registerNetwork(fs)
	watch := fs.Duration("watch", check.DefaultWatch, "watch each page this long after it loads for marks that arrive late (at most 1m)")
	parallel := fs.Int("parallel", 2, "check up to this many pages at once (one browser per Company)")
	noDiscovery := fs.Bool("no-discovery", false, "skip poppy.json discovery; take each page's host as the Company's website (pages in development)")
	fill := fs.Bool("fill", false, "fill each submission form as the agent would and report what filling causes")
	noProbe := fs.Bool("no-probe", false, "do not click unmarked buttons or submit as the User (submit paths, controller in the request)")
	failOn := fs.String("fail-on", "error", "exit 1 when a finding is at least this severe: error, warning or info")
	jsonOut := fs.String("json", "", "write the JSON report (schema poppy-browser/check-report/v1) to this file")
	junitOut := fs.String("junit", "", "write a JUnit XML report (one test case per page and requirement) to this file")
	htmlOut := fs.String("html", "", "write a self-contained HTML report with screenshots to this file")
	sarifOut := fs.String("sarif", "", "write a SARIF 2.1.0 log (one result per finding, for code scanning) to this file")
	settle := fs.Duration("settle", 5*time.Second, "longest wait for a page to become quiet after it loads")
	// Misuse exits 2 (a usage error is also "could not check"): 1 means
	// findings, and a CI job must not read a typo as a failing page.
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	sev, err := check.ParseSeverity(*failOn)
	if err != nil {
		return cli.UsageErrorf("check: --fail-on: %v", err)
	}
	if *watch < 0 || *watch > check.MaxWatch {
		return cli.UsageErrorf("check: --watch %s: give at most %s", *watch, check.MaxWatch)
	}
	if *parallel < 1 {
		return cli.UsageErrorf("check: --parallel %d: give at least 1", *parallel)
	}
	urls := fs.Args()
	if len(urls) == 0 {
		return cli.UsageErrorf("check: give at least one URL (see poppy-browser check --help)")
	}
	if err := cli.NeedDisplay("check", bf.Headful, bf.CDPURL); err != nil {
		return &cli.ExitError{Code: check.ExitCouldNotCheck, Msg: err.Error()}
	}
	opts := &check.Options{
		Chromium:    bf.Chromium,
		CDPURL:      bf.CDPURL,
		Headful:     bf.Headful,
		BrowserArgs: bf.browserArgs,
		HTTPClient:  client,
		NoDiscovery: *noDiscovery,
		Fill:        *fill,
		NoProbe:     *noProbe,
		Settle:      *settle,
		Watch:       *watch,
		Parallel:    *parallel,
		CAFile:      bf.CAFile,
		Resolve:     bf.Resolve,
	}
	if len(urls) > 1 {
		opts.Progress = func(i, n int, u string) { fmt.Fprintf(stderr, "[%d/%d] checking %s\n", i, n, u) }
	}
	c, err := check.New(ctx, opts)
	if err != nil {
		return &cli.ExitError{Code: check.ExitCouldNotCheck, Msg: "check: " + err.Error()}
	}
	defer c.Close()
	rep, runErr := c.Run(ctx, urls)
	if err := rep.WriteText(stdout, sev); err != nil {
		return err
	}
	if err := rep.WriteFiles(check.Files{JSON: *jsonOut, JUnit: *junitOut, HTML: *htmlOut, SARIF: *sarifOut}, sev); err != nil {
		return &cli.ExitError{Code: check.ExitCouldNotCheck, Msg: "check: " + err.Error()}
	}
	if runErr != nil {
		return &cli.ExitError{Code: check.ExitCouldNotCheck, Msg: "check: " + runErr.Error()}
	}
	if code := rep.ExitCode(sev); code != check.ExitClean {
		return &cli.ExitError{Code: code}
	}
	return nil
}
