package main

import (
	"context"
	"flag"

	"github.com/poppy-browser/poppy-browser/supervisor"
)

// config is a runtime's options as the flags of a browser-owning
// subcommand (CONTRACT.md) fill them.
type config struct {
	supervisor.Options
	browserArgs stringList
}

func (c *config) register(fs *flag.FlagSet) {
	fs.StringVar(&c.Chromium, "chromium", "", "Chromium binary (default: find chromium or chrome on PATH)")
	fs.StringVar(&c.CDPURL, "cdp-url", "", "attach to this browser's DevTools URL instead of launching one")
	fs.BoolVar(&c.Headful, "headful", false, "show the browser window")
	fs.Var(&c.browserArgs, "browser-arg", "extra Chromium flag (repeatable), e.g. --host-resolver-rules=...")
	fs.StringVar(&c.AuditLog, "audit-log", "", "append the audit log (JSONL) to this file")
	fs.StringVar(&c.LiveAddr, "live", "127.0.0.1:0", "address of the User's live view")
	fs.StringVar(&c.LiveURLFile, "live-url-file", "", "write the live view URL with its token to this file (mode 0600)")
}

// start starts the runtime the flags describe.
func (c *config) start(ctx context.Context) (*supervisor.Supervisor, error) {
	opts := c.Options
	opts.BrowserArgs = append(append([]string(nil), c.browserArgs...), opts.BrowserArgs...)
	sv := supervisor.New(&opts)
	if err := sv.Start(ctx); err != nil {
		return nil, err
	}
	return sv, nil
}
