package check

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/poppy-browser/poppy-browser/internal/cli"
)

// RunCommand runs the check subcommand of poppy-browser with its
// arguments (flags, then pages); client is what discovery uses (nil: a
// default client; tests pass the testsite's, which trusts its own CA).
// Its error carries the exit code ([ExitCouldNotCheck], 1 for findings,
// 2 for misuse).
func RunCommand(ctx context.Context, args []string, stdout, stderr io.Writer, client *http.Client) error {
	fs := cli.NewFlagSet("check", "check [flags] URL...  (flags and pages also from ./"+ConfigFile+", the command line winning)", stderr)
	var bf struct {
		Options
		browserArgs cli.StringList
	}
	fs.StringVar(&bf.Chromium, "chromium", "", "Chromium binary (default: find chromium or chrome on PATH)")
	fs.StringVar(&bf.CDPURL, "cdp-url", "", "attach to this browser's DevTools URL instead of launching one")
	fs.BoolVar(&bf.Headful, "headful", false, "show the browser window")
	fs.Var(&bf.browserArgs, "browser-arg", "extra Chromium flag (repeatable), e.g. --host-resolver-rules=...")
	cli.RegisterNetwork(fs, &bf.CAFile, &bf.Resolve)
	watch := fs.Duration("watch", DefaultWatch, "watch each page this long after it loads for marks that arrive late (at most 1m)")
	parallel := fs.Int("parallel", 2, "check up to this many pages at once (one browser per Company)")
	noDiscovery := fs.Bool("no-discovery", false, "skip poppy.json discovery; take each page's host as the Company's website (pages in development)")
	fill := fs.Bool("fill", false, "fill each submission form as the agent would and report what filling causes")
	noProbe := fs.Bool("no-probe", false, "do not click unmarked buttons or submit as the User (submit paths, controller in the request)")
	failOn := fs.String("fail-on", "error", "exit 1 when a finding is at least this severe: error, warning or info")
	jsonOut := fs.String("json", "", "write the JSON report (schema poppy-browser/check-report/v1) to this file")
	junitOut := fs.String("junit", "", "write a JUnit XML report (a test case per finding, and per page and requirement checked) to this file")
	htmlOut := fs.String("html", "", "write a self-contained HTML report with screenshots to this file")
	sarifOut := fs.String("sarif", "", "write a SARIF 2.1.0 log (one result per finding, for GitHub code scanning) to this file")
	var sourceRoots cli.StringList
	fs.Var(&sourceRoots, "source-root", "URLPREFIX=DIR (repeatable): in the SARIF log, a page under URLPREFIX is the file of DIR (a folder of the repository) that serves it")
	lighthouseOut := fs.String("lighthouse", "", "write a Lighthouse-shaped result (category browser-control) to this file")
	settle := fs.Duration("settle", 5*time.Second, "longest wait for a page to become quiet after it loads")
	storageState := fs.String("storage-state", "", "load this Playwright storage-state JSON (cookies, local storage) into each page's browser before it loads: pages behind a login")
	loginCmd := fs.String("login-cmd", "", "run this command (with sh) once, before the pages are checked, to log in: it prints a Playwright storage-state JSON on stdout, used as --storage-state is ($POPPY_CHECK_URL is the first page)")
	loginTimeout := fs.Duration("login-timeout", DefaultLoginTimeout, "how long --login-cmd may run")
	var headers, include, exclude cli.StringList
	fs.Var(&headers, "header", "NAME=@FILE or NAME=$VAR (repeatable): send this header, its value read from the file or the environment, with every request to the Company's hosts")
	crawl := fs.Int("crawl", 0, "check up to N pages in all: the pages given, then the same-host pages their links and sitemap.xml lead to")
	crawlDepth := fs.Int("crawl-depth", DefaultCrawlDepth, "follow links at most this many steps from the pages given")
	crawlTime := fs.Duration("crawl-time", DefaultCrawlTime, "stop looking for pages after this long")
	fs.Var(&include, "include", "a path pattern (repeatable; * is any run of characters): --crawl checks only the pages found that match one")
	fs.Var(&exclude, "exclude", "a path pattern (repeatable; * is any run of characters): --crawl leaves out the pages found that match one")
	baseline := fs.String("baseline", "", "a baseline file of accepted findings: fail only on findings not in it")
	updateBaseline := fs.Bool("update-baseline", false, "write this run's findings to the --baseline file (and accept them)")
	// The config file in the current folder (the repository's root, in
	// CI) gives flags too; the command line's come after, so they win.
	cfg, err := LoadConfig(ConfigFile, func(name string) bool { return fs.Lookup(name) != nil })
	if err != nil {
		return cli.UsageErrorf("check: %v", err)
	}
	if cfg != nil {
		args = append(slices.Clone(cfg.Args), args...)
	}
	// Misuse exits 2 (a usage error is also "could not check"): 1 means
	// findings, and a CI job must not read a typo as a failing page.
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	sev, err := ParseSeverity(*failOn)
	if err != nil {
		return cli.UsageErrorf("check: --fail-on: %v", err)
	}
	if *watch < 0 || *watch > MaxWatch {
		return cli.UsageErrorf("check: --watch %s: give at most %s", *watch, MaxWatch)
	}
	if *parallel < 1 {
		return cli.UsageErrorf("check: --parallel %d: give at least 1", *parallel)
	}
	sarifOpts := &SARIFOptions{}
	for _, s := range sourceRoots {
		sr, err := ParseSourceRoot(s)
		if err != nil {
			return cli.UsageErrorf("check: --source-root: %v", err)
		}
		sarifOpts.SourceRoots = append(sarifOpts.SourceRoots, sr)
	}
	files := Files{JSON: *jsonOut, JUnit: *junitOut, HTML: *htmlOut, SARIF: *sarifOut, Lighthouse: *lighthouseOut}
	if err := files.Check(); err != nil {
		return cli.UsageErrorf("check: %v", err)
	}
	urls := fs.Args()
	if len(urls) == 0 && cfg != nil {
		urls = cfg.Pages
	}
	if len(urls) == 0 {
		return cli.UsageErrorf("check: give at least one URL (see poppy-browser check --help)")
	}
	if *updateBaseline && *baseline == "" {
		return cli.UsageErrorf("check: --update-baseline needs --baseline FILE")
	}
	if *crawl < 0 || *crawlDepth < 1 || *crawlTime <= 0 {
		return cli.UsageErrorf("check: --crawl, --crawl-depth and --crawl-time must be positive")
	}
	var base *Baseline
	if *baseline != "" {
		if base, err = ReadBaseline(*baseline); err != nil {
			return cli.UsageErrorf("check: --baseline: %v", err)
		}
		if *updateBaseline {
			if err := (Files{}).CheckOutput("--baseline", *baseline); err != nil {
				return cli.UsageErrorf("check: %v", err)
			}
		}
	}
	hdrs := map[string]string{}
	for _, h := range headers {
		name, value, err := ParseHeader(h, os.Getenv)
		if err != nil {
			return cli.UsageErrorf("check: --header: %v", err)
		}
		hdrs[name] = value
	}
	if *loginCmd != "" && *storageState != "" {
		return cli.UsageErrorf("check: --login-cmd and --storage-state both give the login: give one")
	}
	var state *StorageState
	if *storageState != "" {
		if state, err = LoadStorageState(*storageState); err != nil {
			return cli.UsageErrorf("check: --storage-state: %v", err)
		}
	}
	if *loginCmd != "" {
		if state, err = StorageStateFromCommand(ctx, *loginCmd, urls[0], *loginTimeout); err != nil {
			return &cli.ExitError{Code: ExitCouldNotCheck, Msg: "check: " + err.Error()}
		}
	}
	if err := cli.NeedDisplay("check", bf.Headful, bf.CDPURL); err != nil {
		return &cli.ExitError{Code: ExitCouldNotCheck, Msg: err.Error()}
	}
	opts := &Options{
		Chromium:     bf.Chromium,
		CDPURL:       bf.CDPURL,
		Headful:      bf.Headful,
		BrowserArgs:  bf.browserArgs,
		HTTPClient:   client,
		NoDiscovery:  *noDiscovery,
		Fill:         *fill,
		NoProbe:      *noProbe,
		Settle:       *settle,
		Watch:        *watch,
		Parallel:     *parallel,
		CAFile:       bf.CAFile,
		Resolve:      bf.Resolve,
		Headers:      hdrs,
		StorageState: state,
	}
	if len(urls) > 1 || *crawl > 0 {
		opts.Progress = func(i, n int, u string) { fmt.Fprintf(stderr, "[%d/%d] checking %s\n", i, n, u) }
	}
	c, err := New(ctx, opts)
	if err != nil {
		return &cli.ExitError{Code: ExitCouldNotCheck, Msg: "check: " + err.Error()}
	}
	defer c.Close()
	if *crawl > 0 {
		found, err := c.Crawl(ctx, urls, CrawlOptions{Max: *crawl, Depth: *crawlDepth, Time: *crawlTime, Include: include, Exclude: exclude})
		if err != nil {
			return &cli.ExitError{Code: ExitCouldNotCheck, Msg: "check: " + err.Error()}
		}
		fmt.Fprintf(stderr, "crawl: %d page(s) to check\n", len(found))
		urls = found
	}
	rep, runErr := c.Run(ctx, urls)
	switch {
	case *updateBaseline:
		if err := rep.WriteBaselineFile(*baseline); err != nil {
			return &cli.ExitError{Code: ExitCouldNotCheck, Msg: "check: " + err.Error()}
		}
		rep.ApplyBaseline(rep.Baseline())
		fmt.Fprintf(stderr, "baseline: %d finding(s) written to %s\n", rep.Counts.Baselined, *baseline)
	case base != nil:
		rep.ApplyBaseline(base)
	}
	if err := rep.WriteText(stdout, sev); err != nil {
		return err
	}
	if err := rep.WriteFiles(files, sev, sarifOpts); err != nil {
		return &cli.ExitError{Code: ExitCouldNotCheck, Msg: "check: " + err.Error()}
	}
	if runErr != nil {
		return &cli.ExitError{Code: ExitCouldNotCheck, Msg: "check: " + runErr.Error()}
	}
	if code := rep.ExitCode(sev); code != ExitClean {
		return &cli.ExitError{Code: code}
	}
	return nil
}
