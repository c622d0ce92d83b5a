//go:build unix

package chromium

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// setProcessGroup puts Chromium and its helpers in a group of their own,
// so they can be ended together, and ends Chromium if we die first.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killProcessGroup ends Chromium and its helper processes.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// groupGoneBound bounds the wait for Chromium's helpers after SIGKILL.
const groupGoneBound = 5 * time.Second

// waitGroupGone waits until no process of the group is left: the helpers
// are not our children, so Wait does not see them, and one still alive
// may still be writing the profile. Killed with SIGKILL, they go within
// milliseconds; the bound only keeps a stuck kernel from hanging Stop.
func waitGroupGone(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	deadline := time.Now().Add(groupGoneBound)
	for time.Now().Before(deadline) {
		// Signal 0 probes the group: ESRCH once every member is gone.
		if err := syscall.Kill(-cmd.Process.Pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		time.Sleep(5 * time.Millisecond)
	}
}

// processAlive reports whether a process with that pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
