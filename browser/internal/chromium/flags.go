package chromium

import (
	"fmt"
	"os"
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
	}
	if !cfg.Headful {
		args = append(args, "--headless", "--hide-scrollbars", "--disable-gpu")
	}
	if os.Geteuid() == 0 {
		// Chromium refuses to run its sandbox as root.
		args = append(args, "--no-sandbox")
	}
	args = append(args, fmt.Sprintf("--window-size=%d,%d", cfg.Width, cfg.Height))
	args = append(args, cfg.Args...)
	return append(args, "about:blank")
}
