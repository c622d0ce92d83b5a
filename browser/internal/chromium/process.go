package chromium

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"

	"github.com/chromedp/chromedp"

	"github.com/poppy-browser/poppy-browser/internal/childenv"
	"github.com/poppy-browser/poppy-browser/internal/tail"
)

// Find returns the path of a Chromium or Chrome binary on PATH, or an
// error that names the command that installs one.
func Find() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found on PATH; install it with: sudo apt-get install -y chromium")
}

// Config is what a Chromium is started with.
type Config struct {
	Path        string   // the binary; "" finds one with Find
	UserDataDir string   // "" makes a temporary profile that Stop removes
	Headful     bool     // show a window
	Width       int      // window width in CSS pixels (must be set)
	Height      int      // window height
	Args        []string // extra flags, after ours
}

// Process is a Chromium we started, in its own process group, talking
// over a pipe. Stop ends it; its methods are safe for concurrent use.
type Process struct {
	cmd     *exec.Cmd
	tmpDir  string
	output  *tail.Buffer
	exited  chan struct{}
	waitErr error

	stopOnce sync.Once
	stopErr  error
}

// Start starts Chromium with our flags and an allowlisted environment
// ([childenv.Chromium]) and returns the DevTools pipe to it. The process
// outlives any context of the caller's: it ends at Stop.
//
// A temporary profile is named after this process's pid: a profile whose
// owner is gone (a runtime killed before it could clean up) is removed here,
// at the next start.
func Start(cfg Config) (chromedp.Transport, *Process, error) {
	path := cfg.Path
	if path == "" {
		var err error
		if path, err = Find(); err != nil {
			return nil, nil, err
		}
	}
	dir, tmp := cfg.UserDataDir, ""
	if dir == "" {
		removeStaleProfiles(os.TempDir())
		var err error
		if tmp, err = makeProfile(os.TempDir()); err != nil {
			return nil, nil, fmt.Errorf("starting chromium: %w", err)
		}
		dir = tmp
	}
	if err := writePreferences(dir); err != nil {
		removeProfile(tmp)
		return nil, nil, fmt.Errorf("starting chromium: %w", err)
	}
	cmd := exec.Command(path, flags(cfg, dir)...)
	cmd.Env = childenv.Keep(os.Environ(), childenv.Chromium)
	childR, parentW, err := os.Pipe()
	if err != nil {
		removeProfile(tmp)
		return nil, nil, fmt.Errorf("starting chromium: %w", err)
	}
	parentR, childW, err := os.Pipe()
	if err != nil {
		childR.Close()
		parentW.Close()
		removeProfile(tmp)
		return nil, nil, fmt.Errorf("starting chromium: %w", err)
	}
	out := &tail.Buffer{Max: 16 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.ExtraFiles = []*os.File{childR, childW} // fds 3 and 4
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		childR.Close()
		childW.Close()
		parentR.Close()
		parentW.Close()
		removeProfile(tmp)
		return nil, nil, fmt.Errorf("starting chromium %s: %w", path, err)
	}
	childR.Close()
	childW.Close()
	p := &Process{cmd: cmd, tmpDir: tmp, output: out, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return chromedp.NewPipeConn(parentR, parentW), p, nil
}

// Stop kills the process group (the helpers outlive the main process, and
// write the profile until they end), waits for the main process, and only
// then removes the temporary profile. Later calls return the same. A nil
// Process stops at once.
func (p *Process) Stop() error {
	if p == nil {
		return nil
	}
	p.stopOnce.Do(func() {
		killProcessGroup(p.cmd)
		<-p.exited
		waitGroupGone(p.cmd)
		if err := removeProfile(p.tmpDir); err != nil {
			p.stopErr = fmt.Errorf("removing the temporary profile: %w", err)
		}
	})
	return p.stopErr
}

// Exited is closed when the main process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Pid is the main process's id (for tests that kill it).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// ProfileDir is the temporary profile, "" when the caller gave one.
func (p *Process) ProfileDir() string { return p.tmpDir }

// LastLine is the last non-empty line Chromium printed, for start errors.
func (p *Process) LastLine() string { return p.output.LastLine() }

// Kill kills the process group without waiting or cleaning up, as a crash
// would; Stop still cleans up after it.
func (p *Process) Kill() { killProcessGroup(p.cmd) }
