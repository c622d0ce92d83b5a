package browser

// KillForTest ends the Chromium process group as if it died.
func (b *Browser) KillForTest() { b.proc.Kill() }

// SessionCount is the number of CDP sessions the browser routes now.
func SessionCount(b *Browser) int { return b.conn.Len() }

// ProcessID is the pid of the Chromium a Browser started (0 when attached).
func ProcessID(b *Browser) int {
	if b.proc == nil {
		return 0
	}
	return b.proc.Pid()
}

// Dialogs returns the last dialogs of the tab, oldest first, the open one
// included.
func (p *Page) Dialogs() []Dialog {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Dialog(nil), p.dialogs...)
}

// Location is where the top frame is now, as the browser last reported it;
// it makes no call to the page.
func (p *Page) Location() NavResult {
	r, _, loaded := p.state()
	r.Loaded = loaded
	return r
}
