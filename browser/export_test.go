package browser

// KillForTest ends the Chromium process as if it died.
func (b *Browser) KillForTest() {
	killProcessGroup(b.proc.cmd)
}
