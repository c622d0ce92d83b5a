// Package poolproc runs a browser pool (Browserless, started by a shell
// command) for the pool tests and the pool benchmark: in a process group
// of its own, killed with everything it started, and waited for until it
// answers. It is test and benchmark tooling; the runtime never starts a
// pool.
package poolproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// readyTimeout bounds the wait for a pool to answer: Browserless starts
// Node.js and checks its Chromium first.
const readyTimeout = 2 * time.Minute

// Proc is a running pool.
type Proc struct {
	// Pid is the pool's process, the leader of its process group.
	Pid    int
	exited chan struct{}
}

// Start runs the shell command start in its own process group, with env
// added to its environment (the pool's CONCURRENT and QUEUED), its output
// to out, until GET ready answers 200. A pool that exits first or does not
// answer in readyTimeout is an error (what it said is in out) and is
// stopped.
func Start(ctx context.Context, start, ready string, out io.Writer, env ...string) (*Proc, error) {
	cmd := exec.Command("sh", "-c", start)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Proc{Pid: cmd.Process.Pid, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	wctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(wctx, http.MethodGet, ready, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		select {
		case <-p.exited:
			return nil, errors.New("the pool exited before it answered")
		case <-wctx.Done():
			p.Stop()
			// The address without its query: the token stays out of the error.
			return nil, fmt.Errorf("the pool did not answer %s within %v", strings.SplitN(ready, "?", 2)[0], readyTimeout)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Stop kills the pool's process group and waits for the pool to exit. It
// may be called again.
func (p *Proc) Stop() {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	<-p.exited
}
