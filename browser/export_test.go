package browser

// KillForTest ends the Chromium process as if it died.
func (b *Browser) KillForTest() {
	killProcessGroup(b.proc.cmd)
}

// ProcessID is the pid of the Chromium a Browser started (0 when attached).
func ProcessID(b *Browser) int {
	if b.proc == nil {
		return 0
	}
	return b.proc.cmd.Process.Pid
}

var ChromiumEnv = chromiumEnv
