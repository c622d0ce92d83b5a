package chromium

import (
	"fmt"
	"os"
	"strings"
)

// flags are our own list, not chromedp's defaults: those turn site
// isolation off, and we keep it on.
func flags(cfg Config, userDataDir string) []string {
	args := []string{
		"--remote-debugging-pipe",
		"--user-data-dir=" + userDataDir,
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-default-apps",
		"--disable-extensions",
		"--disable-quic",
		"--disable-features=Translate,MediaRouter,OptimizationHints",
		"--site-per-process",
		"--password-store=basic",
		"--use-mock-keychain",
		"--metrics-recording-only",
		"--mute-audio",
		// navigator.webdriver stays false, as in a browser a person
		// drives: the DevTools pipe alone would turn it on, and any page
		// could tell.
		"--disable-blink-features=AutomationControlled",
		// Chromium shows a banner for flags it does not support (such as
		// --no-sandbox, which it needs as root) in the first tab it
		// opens, which takes 56 px from that page's height: a page there
		// read innerHeight 657 where one in any other tab, the runtime's
		// included, reads 713. Without the banner every tab of the
		// runtime's browser and of a plain one started with the same
		// flags reads the same window.
		"--test-type",
	}
	if !cfg.Headful {
		args = append(args, "--headless", "--hide-scrollbars", "--disable-gpu")
	}
	if os.Geteuid() == 0 {
		// Chromium refuses to run its sandbox as root.
		args = append(args, "--no-sandbox")
	}
	args = append(args, fmt.Sprintf("--window-size=%d,%d", cfg.Width, cfg.Height))
	// The WebMCP draft's document.modelContext and the CDP domain WebMCP:
	// the Company's tools for agents (browser/webmcp.go). Chromium reads
	// the last --enable-features only, so features a caller enables join
	// this one.
	features := "WebMCP"
	for _, a := range cfg.Args {
		if v, ok := strings.CutPrefix(a, "--enable-features="); ok && v != "" {
			features += "," + v
			continue
		}
		args = append(args, a)
	}
	args = append(args, "--enable-features="+features)
	return append(args, "about:blank")
}

// PlainArgs returns the command line of a Chromium like ours, with our
// flags and our profile's preferences (written into userDataDir), but no
// DevTools connection, opening url: the plain browser a benchmark or a
// test compares the runtime's with (package browsertest).
func PlainArgs(cfg Config, userDataDir, url string) ([]string, error) {
	if err := writePreferences(userDataDir); err != nil {
		return nil, err
	}
	var args []string
	for _, a := range flags(cfg, userDataDir) {
		if a != "--remote-debugging-pipe" && a != "about:blank" {
			args = append(args, a)
		}
	}
	return append(args, url), nil
}
