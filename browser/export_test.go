package browser

import "github.com/chromedp/cdproto/page"

// CrashForTest makes the tab's renderer crash, as a bug in it would.
func (p *Page) CrashForTest() {
	_, _, _ = p.t.s.c.send(p.b.ctx, p.t.s.id, page.CommandCrash, nil)
}

// KillForTest ends the Chromium process as if it died.
func (b *Browser) KillForTest() {
	killProcessGroup(b.proc.cmd)
}
