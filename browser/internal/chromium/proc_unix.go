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
	KillGroup(cmd.Process.Pid)
}

// KillGroup sends SIGKILL to the process group led by pid (one started with
// its own group, as Start and browsertest do).
func KillGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

// groupGoneBound bounds the wait for Chromium's helpers after SIGKILL.
const groupGoneBound = 5 * time.Second

// waitGroupGone waits until no process of the group is left: the helpers
// are not our children, so Wait does not see them, and one still alive
// may still be writing the profile. Killed with SIGKILL, they stop within
// milliseconds; the bound only keeps a stuck kernel from hanging Stop.
func waitGroupGone(cmd *exec.Cmd) {
	if cmd.Process != nil {
		WaitGroupGone(cmd.Process.Pid)
	}
}

// WaitGroupGone kills what is left of the process group led by pid and
// returns once none of it runs (zombies run no code, so they write no
// profile), or after a bound of 5 s. Reap the leader (cmd.Wait) first
// where /proc cannot be read: there a zombie still counts as a member.
func WaitGroupGone(pid int) {
	deadline := time.Now().Add(groupGoneBound)
	for time.Now().Before(deadline) {
		if running, ok := groupRunning(pid); ok && !running {
			return
		}
		// Signal 0 probes the group: ESRCH once every member is gone.
		if err := syscall.Kill(-pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		KillGroup(pid)
		time.Sleep(5 * time.Millisecond) // the kernel reaps them: nothing to wait on
	}
}

// processAlive reports whether a process with that pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
